import KioskPadCore
import TerminalIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes every frame as plain text: its rows (trailing blanks trimmed), then a line `----`.
/// No escape codes, so the output can be piped, grepped and diffed.
public struct PlainTextDisplay: DisplayDriver {
    public let geometry: DisplayGeometry
    private let output: @Sendable (String) -> Void

    public init(geometry: DisplayGeometry, output: @escaping @Sendable (String) -> Void = PlainTextDisplay.standardOutput) {
        self.geometry = geometry
        self.output = output
    }

    public func show(_ frame: Frame) async throws {
        output(PlainTextDisplay.render(frame))
    }

    public func close() async {}

    /// The exact text written for `frame`.
    public static func render(_ frame: Frame) -> String {
        frame.text + "\n----\n"
    }

    /// Writes to stdout unbuffered, so a reader of a pipe sees each frame at once.
    public static let standardOutput: @Sendable (String) -> Void = StandardOutput.write
}
