import KeypadDisplay
import KeypadTestSupport
import KioskPadCore
import Synchronization
import Testing

final class OutputCapture: Sendable {
    private let text = Mutex("")
    var value: String { text.withLock { $0 } }
    var write: @Sendable (String) -> Void {
        { [self] chunk in text.withLock { $0 += chunk } }
    }
}

@Suite("Display drivers")
struct DisplayDriverTests {
    let frame = Frame(rows: ["  Access granted", "                "], style: .granted)

    @Test func plainWritesRowsThenASeparatorWithoutEscapes() async throws {
        let capture = OutputCapture()
        let display = PlainTextDisplay(geometry: .lcd1602, output: capture.write)
        try await display.show(frame)
        #expect(capture.value == "  Access granted\n\n----\n")
        #expect(!capture.value.contains("\u{1B}"))
    }

    @Test func ansiDrawsABorderedPanelWithColourAndAHiddenCursor() async throws {
        let capture = OutputCapture()
        let display = ANSITerminalDisplay(geometry: .lcd1602, output: capture.write)
        try await display.show(frame)
        let text = capture.value
        #expect(text.hasPrefix("\u{1B}[?25l"))
        #expect(text.contains("┌" + String(repeating: "─", count: 18) + "┐"))
        #expect(text.contains("\u{1B}[1;32m  Access granted\u{1B}[0m"))
        await display.close()
        #expect(capture.value.hasSuffix("\u{1B}[0m\u{1B}[?25h"))
    }

    @Test func ansiRedrawsInPlace() async throws {
        let capture = OutputCapture()
        let display = ANSITerminalDisplay(geometry: .lcd2004, output: capture.write)
        try await display.show(Frame(rows: Array(repeating: String(repeating: " ", count: 20), count: 4)))
        #expect(!capture.value.contains("\u{1B}[6A"))
        try await display.show(frame)
        #expect(capture.value.contains("\u{1B}[6A"))
    }

    @Test func recordingKeepsFramesAndCanFail() async throws {
        let display = RecordingDisplay(geometry: .lcd1602)
        try await display.show(frame)
        display.setFailing(true)
        await #expect(throws: RecordingDisplay.Failure.self) { try await display.show(frame) }
        #expect(display.frames == [frame])
    }
}

#if canImport(Glibc)
    import Glibc

    /// Under `kioskpad run` the service lifecycle owns SIGTERM: it switches the door relay off
    /// before anything exits. A display that installed its own handler (which used to restore
    /// the terminal and call exit) would race that shutdown.
    @Suite("Display drivers and signals")
    struct DisplaySignalTests {
        private func disposition(_ signalNumber: Int32) -> Int {
            var action = sigaction()
            sigaction(signalNumber, nil, &action)
            return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        }

        @Test func theANSIDisplayLeavesSignalsToTheLifecycle() async throws {
            let before = [SIGTERM, SIGINT, SIGHUP].map(disposition)
            let display = ANSITerminalDisplay(geometry: .lcd1602, output: OutputCapture().write)
            try await display.show(Frame(rows: ["Enter PIN", ""], style: .normal))
            await display.close()
            #expect([SIGTERM, SIGINT, SIGHUP].map(disposition) == before)
            #expect(disposition(SIGTERM) == 0)  // SIG_DFL: nobody in this process took it
        }
    }
#endif
