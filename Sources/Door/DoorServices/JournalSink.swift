import DoorController
import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadThreads
import Logging

/// Writes terminal events to the ``TerminalJournal``: attempts (kind, decision or error,
/// latency), lockouts, keypad faults, dropped Wiegand frames (rate-limited), door unlocks and locks, start and stop, events the
/// bus dropped. Then wakes the forwarder, if any.
public actor JournalSink: TerminalEventSink {
    public let journal: TerminalJournal
    private let terminalID: String
    private let logger: Logger
    private let appended: @Sendable () -> Void
    private var wiegandDrops = ReportLimiter(interval: JournalSink.wiegandDropInterval)
    /// Dropped OSDP messages, rate-limited as Wiegand frames are (`reader_message_dropped`).
    private var readerDrops = ReportLimiter(interval: JournalSink.wiegandDropInterval)
    /// What the next `status` record says, kept from the events as they pass.
    private var status = TerminalStatus()
    private let origin = ContinuousClock.now
    /// At most one `wiegand_dropped` record per this interval; each says how many frames
    /// were dropped since the previous one.
    public static let wiegandDropInterval: Duration = .seconds(10)

    public init(journal: TerminalJournal, terminalID: String, logger: Logger, appended: @escaping @Sendable () -> Void = {}) {
        self.journal = journal
        self.terminalID = terminalID
        self.logger = logger
        self.appended = appended
    }

    /// Attempts are shown only once their records are written and fsynced here.
    public nonisolated var isDurableRecord: Bool { true }

    public func handle(_ event: TerminalEvent) async {
        status.note(event)
        switch event {
        case .keyPressed, .displayError:
            return
        case .attemptDecided(let id, let kind, let outcome, let latency, let lockedOut, let provenance):
            var fields: [(String, JournalValue)] = [
                ("attempt_id", .text(id)), ("kind", .text(kind.rawValue)), ("decision", .text(outcome.decision.rawValue)),
                ("latency_ms", .number(latency.wholeMilliseconds)),
            ]
            if let user = outcome.user { fields.append(("user", .text(user))) }
            if case .denied(_, let reason?) = outcome { fields.append(("reason", .text(reason.rawValue))) }
            if let note = provenance.offline {
                if let unreachable = note.siteUnreachable { fields.append(("site_unreachable", .text(String(unreachable.prefix(300))))) }
                if let refusal = note.refusal {
                    fields.append(("offline_refused", .text(refusal)))
                } else {
                    fields.append(("offline", .json("true")))
                    if let version = note.replicaVersion { fields.append(("replica_version", .number(Int(version)))) }
                }
            }
            if provenance.remote { fields.append(("remote", .json("true"))) }
            if outcome.isDuress {
                // The silent alarm goes first: written, and so forwarded, before the grant.
                await record(.duress, [("attempt_id", .text(id))] + (outcome.user.map { [("user", .text($0))] } ?? []))
            }
            await record(.attempt, fields)
            if lockedOut { await record(.lockout, []) }
        case .pinEnrolment(let id, let outcome, let lockedOut):
            var fields: [(String, JournalValue)] = [("attempt_id", .text(id)), ("result", .text(outcome.result))]
            if case .pinSet(let user?) = outcome { fields.append(("user", .text(user))) }
            if case .refused(let reason) = outcome { fields.append(("reason", .text(reason.rawValue))) }
            await record(.pinEnrolment, fields)
            if lockedOut { await record(.lockout, []) }
        case .remoteUnlockRefused(let reason):
            await record(.remoteUnlockRefused, [("reason", .text(reason))])
        case .remoteCommand(let command, let action, let seconds, let result, let reason):
            var fields: [(String, JournalValue)] = [("command", .number(Int(command))), ("action", .text(action)), ("result", .text(result))]
            if let seconds { fields.append(("seconds", .number(seconds))) }
            if let reason { fields.append(("reason", .text(reason))) }
            await record(.remoteCommand, fields)
        case .keypadFault(let kind, let detail):
            await record(.fault, [("fault", .text(kind)), ("detail", .text(detail))])
        case .wiegandFrameDropped(let reason):
            if let count = wiegandDrops.note(at: origin.duration(to: .now)) {
                await record(.wiegandDropped, [("reason", .text(reason)), ("dropped", .number(count))])
            }
        case .keypadHealth(let ok):
            await record(ok ? .keypadRecovered : .keypadFailed, [])
        case .reader(let address, let report):
            var fields: [(String, JournalValue)] = [("reader", .number(address))]
            if case .online(let secure) = report { fields.append(("secure", .json(secure ? "true" : "false"))) }
            if case .refused(let reason) = report { fields.append(("reason", .text(reason))) }
            await record(report.recordType, fields)
        case .readerMessageDropped(let reason):
            if let count = readerDrops.note(at: origin.duration(to: .now)) {
                await record(.readerMessageDropped, [("reason", .text(reason)), ("dropped", .number(count))])
            }
        case .door(let unlocked, let seconds):
            await record(unlocked ? .doorUnlocked : .doorLocked, unlocked ? [("seconds", .number(seconds))] : [])
        case .doorInput(let input):
            if case .heldOpen(let seconds) = input {
                await record(input.recordType, [("seconds", .number(seconds))])
            } else {
                await record(input.recordType, [])
            }
        case .doorMode(let change):
            var fields: [(String, JournalValue)] = [("mode", .text(change.mode.rawValue)), ("source", .text(change.source))]
            if let who = change.setBy { fields.append(("set_by", .text(who))) }
            await record(.doorMode, fields)
        case .started:
            await record(.start, [("version", .text(KioskPadVersion.version))])
        case .stopping:
            await record(.stop, [])
        case .eventsDropped(let sink, let count):
            await record(.eventsDropped, [("sink", .text(sink)), ("count", .number(count))])
        case .heartbeat:
            await record(.status, status.fields)
        }
    }

    /// Appends one record: the write and its fsync on the file thread (``WorkThreads/files``),
    /// never on a cooperative thread; records stay in the order they were handed over.
    func record(_ type: DoorRecordType, _ fields: [(String, JournalValue)]) async {
        let (journal, type) = (self.journal, type.rawValue)
        let fields: [(String, JournalValue)] = [("terminal_id", .text(terminalID))] + fields
        do {
            _ = try await WorkThreads.files.run { try journal.append(type: type, fields: fields) }
            appended()
        } catch {
            logger.error("journal write failed", metadata: ["error": "\(error)", "path": "\(journal.path)"])
        }
    }
}
