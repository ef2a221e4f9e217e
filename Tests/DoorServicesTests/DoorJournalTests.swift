import DoorController
import DoorServices
import Foundation
import KioskPadCore
import Logging
import Testing

/// What the journal (and so the events endpoint) gets for duress grants and door inputs.
@Suite("Journal: duress and door input records")
struct DoorJournalTests {
    func records(_ events: [TerminalEvent]) async throws -> [[String: Any]] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-door-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try TerminalJournal(directory: directory)
        let sink = JournalSink(journal: journal, terminalID: "door-1", logger: Logger(label: "test"))
        for event in events { await sink.handle(event) }
        return try TerminalJournal.read(path: journal.path).map {
            try JSONSerialization.jsonObject(with: Data($0.line.utf8)) as! [String: Any]
        }
    }

    @Test func aDuressGrantWritesTheDuressRecordFirstThenTheGrant() async throws {
        let written = try await records([
            .attemptDecided(attemptID: "a1", kind: .pin, outcome: .granted(user: "ana", duress: true), latency: .milliseconds(3), lockedOut: false),
            .attemptDecided(attemptID: "a2", kind: .pin, outcome: .granted(user: "ana"), latency: .milliseconds(3), lockedOut: false),
        ])
        #expect(written.map { $0["type"] as? String } == ["duress", "attempt", "attempt"])
        #expect(written[0]["attempt_id"] as? String == "a1" && written[0]["user"] as? String == "ana")
        #expect(written[1]["attempt_id"] as? String == "a1" && written[1]["decision"] as? String == "granted")
        #expect(written[1]["duress"] == nil)  // the grant's own record looks like any grant
    }

    @Test func doorInputsAreJournaledByType() async throws {
        let written = try await records([
            .doorInput(.opened), .doorInput(.forcedOpen), .doorInput(.heldOpen(seconds: 30)), .doorInput(.closed),
            .doorInput(.exitRequest), .doorInput(.tamper(active: true)), .doorInput(.tamper(active: false)),
        ])
        #expect(
            written.map { $0["type"] as? String } == [
                "door_opened", "forced_open", "held_open", "door_closed", "exit_request", "tamper", "tamper_cleared",
            ])
        #expect(written[2]["seconds"] as? Int == 30)
        #expect(written.allSatisfy { $0["terminal_id"] as? String == "door-1" })
    }

    @Test func aHeartbeatJournalsHowTheTerminalIsNow() async throws {
        let written = try await records([
            .heartbeat,
            .doorInput(.opened), .doorInput(.heldOpen(seconds: 30)), .doorInput(.tamper(active: true)), .keypadHealth(ok: false),
            .attemptDecided(attemptID: "a1", kind: .pin, outcome: .denied(), latency: .milliseconds(3), lockedOut: true),
            .doorMode(DoorModeChange(mode: .release, source: "fire_alarm")),
            .heartbeat,
            .doorInput(.closed), .doorInput(.tamper(active: false)), .keypadHealth(ok: true),
            .doorMode(DoorModeChange(mode: .normal, source: "normal")),
            .attemptDecided(attemptID: "a2", kind: .pin, outcome: .granted(user: "ana"), latency: .milliseconds(3), lockedOut: false),
            .heartbeat,
        ]).filter { $0["type"] as? String == "status" }
        let fields = written.map { record in
            ["keypad", "door", "tamper", "locked_out", "last_decision", "mode", "mode_source"].map { record[$0] as? String ?? "-" }
        }
        #expect(
            fields == [
                ["ok", "unknown", "clear", "no", "-", "normal", "normal"],
                ["failed", "held_open", "active", "yes", "denied", "release", "fire_alarm"],
                ["ok", "closed", "clear", "no", "granted", "normal", "normal"],
            ])
    }

    @Test func aFloodOfDroppedWiegandFramesIsJournaledOncePerIntervalAndCountedInFull() async throws {
        let drops = Array(repeating: TerminalEvent.wiegandFrameDropped(reason: "parity"), count: 40)
        let written = try await records(drops + [.doorInput(.opened)])
        #expect(written.map { $0["type"] as? String } == ["wiegand_dropped", "door_opened"])
        #expect(written[0]["reason"] as? String == "parity" && written[0]["dropped"] as? Int == 1)
        let metrics = TerminalMetrics()
        for event in drops + [.wiegandFrameDropped(reason: "bit_count")] { await metrics.handle(event) }
        let text = metrics.exposition()
        #expect(text.contains(#"kioskpad_wiegand_frames_dropped_total{reason="parity"} 40"#), "\(text)")
        #expect(text.contains(#"kioskpad_wiegand_frames_dropped_total{reason="bit_count"} 1"#), "\(text)")
    }
}
