import KeypadHAL
import KioskPadCore

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

    public func start(
        deliver: @escaping @Sendable (KeySourceEvent) -> Void,
        finished: @escaping @Sendable ((any Error)?) -> Void
    ) -> KeySourceRun {
        for event in script { deliver(event) }
        finished(nil)
        return KeySourceRun(stop: {})
    }
}
