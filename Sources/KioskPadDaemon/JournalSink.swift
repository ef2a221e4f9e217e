import Foundation
import KeypadCore
import KioskPadController
import Logging

/// Writes terminal events to the ``TerminalJournal``: attempts (kind, decision or error,
/// latency), lockouts, keypad faults, door unlocks, start and stop. Then wakes the
/// forwarder, if any.
public actor JournalSink: TerminalEventSink {
    public let journal: TerminalJournal
    private let terminalID: String
    private let logger: Logger
    private let appended: @Sendable () -> Void

    public init(journal: TerminalJournal, terminalID: String, logger: Logger, appended: @escaping @Sendable () -> Void = {}) {
        self.journal = journal
        self.terminalID = terminalID
        self.logger = logger
        self.appended = appended
    }

    public func handle(_ event: TerminalEvent) async {
        switch event {
        case .keyPressed, .displayError:
            return
        case .attemptDecided(let kind, let outcome, let latency, let lockedOut):
            let decision: String
            switch outcome {
            case .granted: decision = "granted"
            case .denied: decision = "denied"
            case .unavailable: decision = "error"
            }
            record("attempt", [("kind", .text(kind.rawValue)), ("decision", .text(decision)), ("latency_ms", .number(latency.wholeMilliseconds))])
            if lockedOut { record("lockout", []) }
        case .keypadFault(let kind, let detail):
            record("fault", [("fault", .text(kind)), ("detail", .text(detail))])
        case .keypadHealth(let ok):
            record(ok ? "keypad_recovered" : "keypad_failed", [])
        }
    }

    /// Appends a record (start, stop, door) outside the event stream.
    public func record(_ type: String, _ fields: [(String, JournalValue)]) {
        do {
            try journal.append(type: type, fields: [("terminal_id", .text(terminalID))] + fields)
            appended()
        } catch {
            logger.error("journal write failed", metadata: ["error": "\(error)", "path": "\(journal.path)"])
        }
    }
}
