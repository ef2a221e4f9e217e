import Crypto
import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// What a door's check-in costs the database (issue 80, point 7), counted statement by
/// statement on each real store: a door that reports what it reported before is answered
/// from one read, with its settings and the replica key's statement in it; a new report is
/// that read and one write; a door signing with the site secret that never forwarded a
/// record is refused after the same one read.
@Suite("A check-in in one database round trip, on SQLite and PostgreSQL", .heavy)
struct DoorCheckInRoundTripTests {
    let clock = TestWallClock()

    func request(_ door: String, secret: WebhookSecret, body: String) -> ReferenceVerifier.Incoming {
        let bytes = Array(body.utf8)
        let id = UUID().uuidString
        let seconds = Int(clock.now.timeIntervalSince1970)
        return ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: WebhookSignature.sign(id: id, timestamp: seconds, body: bytes, secret: secret), body: bytes, terminal: door)
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aRepeatedCheckInIsOneReadAndNoWrite(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let secret = WebhookSecret.generate()
        try await store.administration.addDoor(terminalID: "lobby", secret: secret)
        try await store.administration.setSettings(scope: DoorSettings.siteScope, try DoorSettings(json: #"{"entry.timeout_s":20}"#))
        let counted = try store.counted()
        let siteSecret = WebhookSecret.generate()
        let endpoint = DoorCheckIn(
            store: counted.store, settings: counted.administration, replica: counted.administration, siteSecret: siteSecret, interval: 60,
            clock: clock.read)
        let trusted = try await counted.administration.publicKey().description
        let report = #"{"terminal_id":"lobby","settings_version":0,"replica_keys":["\#(trusted)"]}"#
        // A report noted is one write transaction of one statement; SQLite's writer then reads
        // whether the replica version must settle (on its own thread, no round trip).
        let noted = CountingSiteDatabase.Counts(reads: 1, writes: kind == .sqlite ? 2 : 1, transactions: 1)
        counted.database.reset()

        // The first report is noted: the one read, then one write.
        let first = try await endpoint.call(request("lobby", secret: secret, body: report)).get()
        #expect(first["check_in_s"] as? Int == 60 && first["settings"] != nil, "\(first)")
        #expect(counted.database.counts == noted, "\(counted.database.counts)")
        // The same report again: the settings are given again (the door runs 0), from the one read alone.
        counted.database.reset()
        let again = try await endpoint.call(request("lobby", secret: secret, body: report)).get()
        #expect(again["settings"] != nil, "\(again)")
        #expect(counted.database.counts == .init(reads: 1, writes: 0, transactions: 0), "\(counted.database.counts)")
        // The door now runs the version it was given: noted once, then one read each.
        let version = try await store.administration.allSettings().version
        let running = #"{"terminal_id":"lobby","settings_version":\#(version),"replica_keys":["\#(trusted)"]}"#
        counted.database.reset()
        let caughtUp = try await endpoint.call(request("lobby", secret: secret, body: running)).get()
        #expect(caughtUp["settings"] == nil, "\(caughtUp)")
        #expect(counted.database.counts == noted, "\(counted.database.counts)")
        counted.database.reset()
        for _ in 0..<3 { _ = try await endpoint.call(request("lobby", secret: secret, body: running)).get() }
        #expect(counted.database.counts == .init(reads: 3, writes: 0, transactions: 0), "\(counted.database.counts)")
        let states = try await store.administration.settingsStates()
        #expect(states["lobby"] == DoorSettingsState(terminalID: "lobby", running: version, refused: nil, replicaKeys: [trusted]))

        // A door with no secret of its own that never forwarded a record: refused after the one read.
        counted.database.reset()
        let stranger = await endpoint.call(request("stranger", secret: siteSecret, body: #"{"terminal_id":"stranger"}"#))
        guard case .failure(let refusal) = stranger else {
            Issue.record("a stranger was answered")
            return
        }
        #expect(refusal.reason.contains("has not reported to this site"), "\(refusal.reason)")
        #expect(counted.database.counts == .init(reads: 1, writes: 0, transactions: 0), "\(counted.database.counts)")
        #expect(try await store.administration.settingsStates()["stranger"] == nil, "nothing stored for it")
    }
}
