import KeypadCore
import KeypadHAL

/// A key source that replays a fixed list of events (tests and demos); always scripted.
public struct ScriptedKeySource: KeySource {
    public let script: [KeySourceEvent]
    public var isScripted: Bool { true }

    public init(_ script: [KeySourceEvent]) {
        self.script = script
    }

    /// Decodes `text` with the simulated-mode key map, as a pipe would be.
    public init(text: String) {
        var decoder = KeyByteDecoder(scripted: true)
        self.init(decoder.decode(Array(text.utf8)))
    }

    public func events() -> AsyncStream<KeySourceEvent> {
        AsyncStream { continuation in
            for event in script { continuation.yield(event) }
            continuation.finish()
        }
    }
}
