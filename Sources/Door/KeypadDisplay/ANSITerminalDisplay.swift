import KioskPadCore
import Synchronization
import TerminalIO

/// Draws frames as a bordered panel on an ANSI terminal (laptop, HDMI console), redrawn in
/// place, with colour for results and the cursor hidden; ``close()`` and every exit path
/// (through ``TerminalRestorer``) show the cursor and reset colours again.
public final class ANSITerminalDisplay: DisplayDriver {
    public let geometry: DisplayGeometry
    private let output: @Sendable (String) -> Void
    private let drawn = Mutex(false)

    public init(
        geometry: DisplayGeometry,
        output: @escaping @Sendable (String) -> Void = PlainTextDisplay.standardOutput
    ) {
        self.geometry = geometry
        self.output = output
    }

    public func show(_ frame: Frame) async throws {
        let first = drawn.withLock { drawn in
            defer { drawn = true }
            return !drawn
        }
        if first {
            TerminalRestorer.shared.writeOnRestore(ANSI.reset + ANSI.showCursor)
            output(ANSI.hideCursor)
        }
        output(ANSITerminalDisplay.render(frame, geometry: geometry, redraw: !first))
    }

    public func close() async {
        guard drawn.withLock({ $0 }) else { return }
        output(ANSI.reset + ANSI.showCursor)
    }

    /// The escape-coded text for one frame; `redraw` first moves the cursor back up over the
    /// previous panel.
    public static func render(_ frame: Frame, geometry: DisplayGeometry, redraw: Bool) -> String {
        let border = String(repeating: "─", count: geometry.columns + 2)
        var text = redraw ? ANSI.cursorUp(geometry.rows + 2) : ""
        text += "\r┌" + border + "┐" + ANSI.clearLine + "\r\n"
        let colour = ANSI.colour(for: frame.style)
        for row in frame.rows {
            text += "│ " + colour + row + ANSI.reset + " │" + ANSI.clearLine + "\r\n"
        }
        text += "└" + border + "┘" + ANSI.clearLine + "\r\n"
        return text
    }
}

/// The few escape sequences the terminal display uses.
enum ANSI {
    static let esc = "\u{1B}["
    static let reset = esc + "0m"
    static let hideCursor = esc + "?25l"
    static let showCursor = esc + "?25h"
    static let clearLine = esc + "K"
    static func cursorUp(_ lines: Int) -> String { esc + "\(lines)A" }

    static func colour(for style: FrameStyle) -> String {
        switch style {
        case .normal: return ""
        case .busy: return esc + "36m"
        case .granted: return esc + "1;32m"
        case .denied: return esc + "1;31m"
        case .warning: return esc + "1;33m"
        }
    }
}
