import Foundation
import KioskPadCommandLine
import Logging
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Log lines for journald")
struct JournalLogHandlerTests {
    final class Lines: @unchecked Sendable {
        // @unchecked: appended to under the lock only.
        private let lock = NSLock()
        private var text = ""
        var value: String { lock.withLock { text } }
        var emit: @Sendable (String) -> Void { { [self] chunk in lock.withLock { text += chunk } } }
    }

    private func logger(journal: Bool, into lines: Lines) -> Logger {
        var logger = Logger(label: "kioskpad.run") { label in
            JournalLogHandler(label: label, journal: journal, emit: lines.emit)
        }
        logger.logLevel = .trace
        return logger
    }

    @Test func underJournaldEachLineStartsWithItsSyslogPriority() {
        let lines = Lines()
        let log = logger(journal: true, into: lines)
        log.warning("keypad fault", metadata: ["fault": "stuck"])
        log.error("verifier unavailable")
        log.notice("terminal ready")
        log.critical("door relay did not switch off")
        #expect(
            lines.value == """
                <4>kioskpad.run: keypad fault fault=stuck
                <3>kioskpad.run: verifier unavailable
                <5>kioskpad.run: terminal ready
                <2>kioskpad.run: door relay did not switch off

                """)
    }

    @Test func aLineBreakInAMessageDoesNotStartAnUnprefixedRecord() {
        let lines = Lines()
        logger(journal: true, into: lines).error("first\nsecond")
        #expect(lines.value == "<3>kioskpad.run: first\n<3>kioskpad.run: second\n")
    }

    @Test func onATerminalLinesArePlainWithATimestampAndTheLevel() {
        let lines = Lines()
        logger(journal: false, into: lines).warning("keypad fault")
        #expect(!lines.value.hasPrefix("<"))
        #expect(lines.value.hasSuffix(" warning kioskpad.run: keypad fault\n"))
        #expect(lines.value.first?.isNumber == true)  // starts with the date
    }

    @Test func everyLevelMapsToItsSyslogPriority() {
        let expected: [(Logger.Level, Int)] = [(.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2)]
        for (level, priority) in expected {
            #expect(JournalLogHandler.priority(level) == priority, "\(level)")
        }
    }

    @Test func theJournalIsDetectedOnlyWhenJournalStreamNamesStderr() {
        var info = stat()
        #expect(fstat(STDERR_FILENO, &info) == 0)
        let stderrStream = "\(info.st_dev):\(info.st_ino)"
        #expect(JournalLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": stderrStream]))
        // Inherited from a parent whose stderr was the journal, but ours is not: plain lines.
        #expect(!JournalLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino + 1)"]))
        #expect(!JournalLogHandler.stderrIsJournal(environment: [:]))
    }
}
