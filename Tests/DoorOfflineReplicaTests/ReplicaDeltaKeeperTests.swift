import Crypto
import DoorOfflineReplica
import Foundation
import KioskPadAccess
import KioskPadCore
import Testing

/// A door applying deltas (``CredentialReplicaDelta``): the users named lose their old lines
/// and rules and get the delta's, the file keeps the whole replica and every delta since, each
/// signature checked again at a restart; a delta from another version or history is refused
/// and changes nothing.
@Suite("Replica keeper: deltas")
struct ReplicaDeltaKeeperTests {
    let key = Curve25519.Signing.PrivateKey()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-delta-\(UUID())")
    let issued = Date(timeIntervalSince1970: 1_790_000_000)

    func keeper() -> ReplicaKeeper {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return ReplicaKeeper(
            settings: ReplicaKeeper.Settings(
                terminalID: "front-door", trust: ReplicaTrust(current: ReplicaPublicKey(key.publicKey)),
                path: directory.appendingPathComponent("replica.json").path, maxAge: .seconds(86_400), wallClockTrusted: { true },
                wallClock: { Date(timeIntervalSince1970: 1_790_000_000 + 600) }))
    }

    func entry(_ user: String, _ pin: String) throws -> CredentialReplica.Entry {
        CredentialReplica.Entry(user: user, kind: "pin", hash: try PINHash.make(pin: SecretDigits(ascii: pin)!, iterations: 1000))
    }

    func base() throws -> SignedReplica {
        try SignedReplica(
            signing: .replica(
                CredentialReplica(
                    terminalID: "front-door", version: 10, issuedAt: issued, timeZone: "UTC", schedules: ["night": "daily 01:00-02:00"],
                    rules: ["cy": "schedule=night"], entries: [try entry("ann", "1470"), try entry("bo", "2581"), try entry("cy", "3692")], mark: "m10")),
            with: key)
    }

    func delta(from: Int64 = 10, fromMark: String = "m10", to: Int64 = 12, users: [String], entries: [CredentialReplica.Entry], rules: [String: String] = [:])
        throws -> SignedReplica
    {
        try SignedReplica(
            signing: .delta(
                CredentialReplicaDelta(
                    terminalID: "front-door", fromVersion: from, fromMark: fromMark, version: to, mark: "m\(to)", issuedAt: issued.addingTimeInterval(60),
                    users: users, entries: entries, rules: rules, schedules: ["office": "mon-fri 08:00-18:00"])), with: key)
    }

    func decide(_ keeper: ReplicaKeeper, _ pin: String) async throws -> AttemptOutcome {
        let (verifier, _) = try keeper.offlineVerifier().get()
        return await verifier.verify(VerificationAttempt(terminalID: "front-door", kind: .pin, value: SecretDigits(ascii: pin)!))
    }

    @Test func aDeltaReplacesTheUsersItNamesAndSurvivesARestart() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let door = keeper()
        try door.accept(try base(), receivedAt: nil)
        // ann's PIN changes, bo may no longer open the door, dee is new; cy is untouched.
        let summary = try door.accept(
            try delta(users: ["ann", "bo", "dee"], entries: [try entry("ann", "7410"), try entry("dee", "8520")], rules: ["dee": "schedule=office"]),
            receivedAt: nil)
        #expect(summary.version == 12 && summary.users == 3 && summary.deltaUsers == 3 && summary.changed)
        for (pin, outcome) in [("1470", AttemptOutcome.denied()), ("7410", .granted(user: "ann")), ("2581", .denied())] {
            #expect(try await decide(door, pin) == outcome)
        }
        let held = try #require(door.held)
        #expect(held.replica.rules == ["cy": "schedule=night", "dee": "schedule=office"] && held.replica.schedules.count == 2)
        #expect(held.replica.mark == "m12" && held.markForDelta == "m12" && held.deltas.count == 1)
        let file = try String(contentsOfFile: directory.appendingPathComponent("replica.json").path, encoding: .utf8)
        #expect(file.contains("\"format\":2") && file.contains("\"deltas\""))
        // A restart reads the whole replica and the delta, both signatures checked.
        let again = keeper()
        #expect(again.version == 12 && again.held?.replica == held.replica)
        #expect(try await decide(again, "7410") == .granted(user: "ann"))
        // The next delta goes on from version 12.
        try again.accept(try delta(from: 12, fromMark: "m12", to: 15, users: ["cy"], entries: []), receivedAt: nil)
        #expect(again.held?.replica.entries.map(\.user).sorted() == ["ann", "dee"] && keeper().version == 15)
        // A whole replica replaces the chain: the file is format 1 again.
        try again.accept(
            try SignedReplica(
                signing: .replica(
                    CredentialReplica(terminalID: "front-door", version: 20, issuedAt: issued, timeZone: "UTC", schedules: [:], rules: [:], entries: [])),
                with: key), receivedAt: nil)
        #expect(try String(contentsOfFile: directory.appendingPathComponent("replica.json").path, encoding: .utf8).contains("\"format\":1"))
        #expect(again.held?.markForDelta == nil, "a replica without a mark asks for the whole replica")
    }

    @Test func aDeltaFromAnotherVersionOrHistoryIsRefusedAndChangesNothing() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let door = keeper()
        #expect(throws: ReplicaError.self) { try door.accept(try delta(users: ["ann"], entries: []), receivedAt: nil) }
        try door.accept(try base(), receivedAt: nil)
        for refused in [
            try delta(from: 9, users: ["ann"], entries: []),
            try delta(fromMark: "m10-of-another-history", users: ["ann"], entries: []),
        ] {
            #expect(throws: ReplicaError.self) { try door.accept(refused, receivedAt: nil) }
        }
        // A line of a user the delta does not name is a malformed delta.
        let stray = try delta(users: ["ann"], entries: [try entry("eve", "9630")])
        #expect(throws: ReplicaError.self) { try door.accept(stray, receivedAt: nil) }
        #expect(door.version == 10 && door.held?.deltas.isEmpty == true)
        #expect(try await decide(door, "1470") == .granted(user: "ann"))
    }

    @Test func aDoorWithManyDeltasAsksForTheWholeReplica() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let door = keeper()
        try door.accept(try base(), receivedAt: nil)
        var version: Int64 = 10
        for _ in 0..<HeldReplica.maxDeltas {
            #expect(door.held?.markForDelta == "m\(version)")
            try door.accept(try delta(from: version, fromMark: "m\(version)", to: version + 1, users: ["bo"], entries: []), receivedAt: nil)
            version += 1
        }
        #expect(door.held?.markForDelta == nil && keeper().version == version)
    }
}
