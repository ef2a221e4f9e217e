import DoorController
import DoorServices
import Foundation
import KioskPadAccess
import KioskPadCore
import Logging
import Testing

/// How a door that decided offline says so: the attempt's journal record, the metrics, and
/// `/healthz`'s body (whose status stays 200).
@Suite("Offline decisions in the journal, metrics and health")
struct OfflineReportingTests {
    @Test func theAttemptRecordSaysOfflineWithTheReplicaVersionOrWhyNot() async throws {
        let written = try await DoorJournalTests().records([
            Self.decided("a1", .granted(user: "bob"), offline: OfflineDecision(decision: "granted", replicaVersion: 12, refusal: nil)),
            Self.decided(
                "a2", .unavailable, offline: OfflineDecision(decision: "refused", replicaVersion: 12, refusal: "replica v12 was confirmed 25.0 h ago")),
            .attemptDecided(attemptID: "a3", kind: .pin, outcome: .denied(), latency: .milliseconds(20), lockedOut: false),
            .attemptDecided(
                attemptID: "a4", kind: .pin, outcome: .granted(user: "cai"), latency: .milliseconds(20), lockedOut: false,
                provenance: DecisionProvenance(remote: true)),
        ])
        #expect(written.count == 4)
        #expect(written[0]["offline"] as? Bool == true && written[0]["replica_version"] as? Int == 12 && written[0]["user"] as? String == "bob")
        #expect(written[1]["offline"] == nil && written[1]["offline_refused"] as? String == "replica v12 was confirmed 25.0 h ago")
        #expect(written[1]["decision"] as? String == "error")
        #expect(written[2]["offline"] == nil && written[2]["offline_refused"] == nil && written[2]["remote"] == nil)
        #expect(written[3]["remote"] as? Bool == true && written[3]["offline"] == nil && written[3]["user"] as? String == "cai")
    }

    /// An attempt's decision whose provenance says the door decided it offline (or refused to).
    static func decided(_ id: String, _ outcome: AttemptOutcome, offline: OfflineDecision) -> TerminalEvent {
        .attemptDecided(
            attemptID: id, kind: .pin, outcome: outcome, latency: .milliseconds(510), lockedOut: false, provenance: DecisionProvenance(offline: offline))
    }

    @Test func metricsCountOfflineDecisionsAndShowTheReplicasAge() async {
        let metrics = TerminalMetrics(replica: { (age: 125, version: 12) })
        await metrics.handle(Self.decided("a1", .granted(user: "bob"), offline: OfflineDecision(decision: "granted", replicaVersion: 12, refusal: nil)))
        await metrics.handle(Self.decided("a2", .denied(), offline: OfflineDecision(decision: "denied", replicaVersion: 12, refusal: nil)))
        await metrics.handle(Self.decided("a3", .denied(), offline: OfflineDecision(decision: "denied", replicaVersion: 12, refusal: nil)))
        await metrics.handle(.attemptDecided(attemptID: "a4", kind: .pin, outcome: .denied(), latency: .zero, lockedOut: false))
        let text = metrics.exposition()
        #expect(text.contains("kioskpad_offline_decisions_total{decision=\"granted\"} 1"), "\(text)")
        #expect(text.contains("kioskpad_offline_decisions_total{decision=\"denied\"} 2"))
        #expect(text.contains("kioskpad_replica_age_seconds 125"))
        #expect(text.contains("kioskpad_replica_version 12"))
    }

    @Test func healthStaysHealthyAndSaysTheDoorDecidesFromItsReplica() async {
        let health = HealthState(offlineLine: { "verifier offline: deciding from replica v12, confirmed 3 min ago" })
        await health.handle(.attemptDecided(attemptID: "a1", kind: .pin, outcome: .granted(user: "bob"), latency: .zero, lockedOut: false))
        #expect(health.healthy)
        #expect(health.summary == "keypad ok, verifier offline: deciding from replica v12, confirmed 3 min ago")
        let online = HealthState()
        #expect(online.summary == "keypad ok, verifier ok")
    }

    @Test func theStartRecordAndHealthzCarryTheVersion() async throws {
        let written = try await DoorJournalTests().records([.started])
        #expect(written.first?["type"] as? String == "start" && written.first?["version"] as? String == KioskPadVersion.version)
        #expect(HealthState().body == "keypad ok, verifier ok\nkioskpad \(KioskPadVersion.version)\n")
    }
}

/// `kioskpad_door_mode`: one series per mode, 1 for the one the door is in, from the first scrape.
@Suite("The door mode metric")
struct DoorModeMetricTests {
    @Test func aNewDoorIsNormalFromItsFirstScrapeAndAChangeMovesTheOne() async {
        let metrics = TerminalMetrics()
        let start = metrics.exposition()
        #expect(start.contains("kioskpad_door_mode{mode=\"normal\"} 1"), "\(start)")
        #expect(start.contains("kioskpad_door_mode{mode=\"lockdown\"} 0") && start.contains("kioskpad_door_mode{mode=\"release\"} 0"), "\(start)")
        await metrics.handle(.doorMode(DoorModeChange(mode: .lockdown, source: "site", setBy: "ops")))
        let locked = metrics.exposition()
        #expect(locked.contains("kioskpad_door_mode{mode=\"lockdown\"} 1") && locked.contains("kioskpad_door_mode{mode=\"normal\"} 0"), "\(locked)")
    }
}
