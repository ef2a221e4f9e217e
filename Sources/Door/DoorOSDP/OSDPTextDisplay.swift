import KeypadDisplay
import KioskPadCore
import Synchronization

/// The text panel of the OSDP readers as the terminal's display (`display: {driver: osdp}`):
/// each frame's rows go out as osdp_TEXT commands (permanent, row by row, padded to the
/// width), only the rows that changed since the last frame, in place of the next polls. The
/// rows are what the entry model composed, so a PIN is never sent, only its mask; through the
/// Secure Channel the text is encrypted as well. A reader without a text panel ignores them.
public final class OSDPTextDisplay: DisplayDriver {
    public let geometry: DisplayGeometry
    private let commands: OSDPCommandQueue
    private let shown = Mutex<[String]>([])

    public init(geometry: DisplayGeometry, commands: OSDPCommandQueue) {
        self.geometry = geometry
        self.commands = commands
    }

    /// The osdp_TEXT commands that turn the panel from `previous` rows into `frame`'s.
    public static func commands(from previous: [String], to frame: Frame, width: Int) -> [OSDPOutgoing] {
        frame.rows.enumerated().compactMap { index, row in
            let padded = String(row.prefix(width)).padding(toLength: width, withPad: " ", startingAt: 0)
            guard index >= previous.count || previous[index] != padded else { return nil }
            return .text(padded, row: UInt8(index + 1))
        }
    }

    public func show(_ frame: Frame) async throws {
        let width = geometry.columns
        let outgoing = shown.withLock { previous in
            defer { previous = frame.rows.map { String($0.prefix(width)).padding(toLength: width, withPad: " ", startingAt: 0) } }
            return Self.commands(from: previous, to: frame, width: width)
        }
        for command in outgoing { commands.send(command) }
    }

    public func close() async {
        try? await show(Frame(rows: Array(repeating: "", count: geometry.rows)))
    }
}
