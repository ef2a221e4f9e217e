import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// Remote unlock and lock at the site, on SQLite and PostgreSQL: a command is stored with its
/// audit record and change-log entry in one transaction, only for a door the site knows, not
/// retired, not in lockdown; a door waiting on the push channel with a nonce is answered with
/// it at once, signed with the replica key for that nonce, and another door is not woken.
@Suite("Remote door commands at the site", .heavy)
struct RemoteDoorCommandsTests {
    let siteSecret = WebhookSecret.generate()

    func commands(_ under: StoreUnderTest, poke: @escaping @Sendable () -> Void = {}) -> RemoteDoorCommands {
        RemoteDoorCommands(
            administration: under.administration, changes: AdministratorChanges(store: under.store, by: .console("ops", role: .owner, from: "test")), poke: poke
        )
    }

    func watchRequest(door: String, haveCommand: Int64, nonce: String, secret: WebhookSecret? = nil, version: Int64 = 0) -> ReferenceVerifier.Incoming {
        let body = Array("{\"terminal_id\":\"\(door)\",\"have_version\":\(version),\"wait_s\":3,\"have_command\":\(haveCommand),\"nonce\":\"\(nonce)\"}".utf8)
        let id = "msg_\(UUID().uuidString)"
        let seconds = Int(Date().timeIntervalSince1970)
        return ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: WebhookSignature.sign(id: id, timestamp: seconds, body: body, secret: secret ?? siteSecret), body: body)
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func anUnlockIsStoredAuditedAndLoggedTogetherAndMovesNoReplica(_ kind: StoreUnderTest.Kind) async throws {
        let under = try await StoreUnderTest.make(kind)
        defer { Task { await under.destroy() } }
        try await under.administration.addDoor(terminalID: "front-door", secret: .generate())
        let keeping = try #require(under.administration as? any ReplicaKeeping)
        let version = try await keeping.replicaVersion()
        let stored = try await commands(under).issue(
            RemoteDoorCommand(door: "front-door", action: .unlock, seconds: 12, reason: "courier at the gate"), at: Date())
        #expect(stored.id > 0 && stored.expiresAt.timeIntervalSince(stored.issuedAt) == RemoteDoorCommands.lifetime)
        let audited = try await under.auditRecords().filter { $0["action"] == "door_unlock" }
        #expect(audited.count == 1)
        #expect(audited.first?["terminal_id"] == "front-door" && audited.first?["command"] == String(stored.id), "\(audited)")
        #expect(audited.first?["seconds"] == "12" && audited.first?["reason"] == "courier at the gate" && audited.first?["admin"] == "ops")
        let logged = try await under.store.changeLog(after: 0, limit: 100).filter { $0.entry.action == .doorUnlock }
        #expect(logged.map(\.entry.kind) == [.doorCommand] && logged.first?.entry.subject == "front-door")
        #expect(try await keeping.replicaVersion() == version, "a command changes no replica: no door syncs for it")
        let kept = try await under.administration.recentDoorCommands(terminal: "front-door", limit: 5)
        #expect(kept.map(\.id) == [stored.id] && kept.first?.seconds == 12 && kept.first?.deliveredAt == nil)
        #expect(AdministratorAction.doorUnlock.webhookEventType == .doorCommand)
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aCommandForAnUnknownRetiredOrLockedDownDoorOrWithBadFieldsLeavesNoTrace(_ kind: StoreUnderTest.Kind) async throws {
        let under = try await StoreUnderTest.make(kind)
        defer { Task { await under.destroy() } }
        try await under.administration.addDoor(terminalID: "front-door", secret: .generate())
        try await under.administration.addDoor(terminalID: "old-door", secret: .generate())
        try await under.administration.retireDoor(terminalID: "old-door", now: Date())
        _ = try await under.administration.setMode(.lockdown, door: "front-door", by: "ops", at: Date())
        let issue = commands(under)
        func refusal(_ command: RemoteDoorCommand) async -> UserEditError? {
            do {
                _ = try await issue.issue(command, at: Date())
                return nil
            } catch {
                return error as? UserEditError
            }
        }
        let unknown = await refusal(RemoteDoorCommand(door: "typo-door", action: .unlock, reason: "x"))
        #expect(unknown?.kind == .notFound && unknown?.description.contains("typo-door") == true, "\(String(describing: unknown))")
        #expect(await refusal(RemoteDoorCommand(door: "old-door", action: .unlock, reason: "x"))?.kind == .conflict)
        let lockdown = await refusal(RemoteDoorCommand(door: "front-door", action: .unlock, reason: "x"))
        #expect(lockdown?.kind == .conflict && lockdown?.description.contains("lockdown") == true)
        #expect(await refusal(RemoteDoorCommand(door: "front-door", action: .unlock, seconds: 301, reason: "x"))?.description.contains("seconds") == true)
        #expect(await refusal(RemoteDoorCommand(door: "front-door", action: .lock, seconds: 5, reason: "x"))?.description.contains("seconds") == true)
        #expect(await refusal(RemoteDoorCommand(door: "front-door", action: .lock, reason: "  "))?.description.contains("reason") == true)
        #expect(
            try await under.auditRecords().filter { ($0["action"] ?? "").hasPrefix("door_") && $0["action"] != "door_add" && $0["action"] != "door_retire" }
                .isEmpty)
        #expect(try await under.administration.recentDoorCommands(terminal: nil, limit: 5).isEmpty)
        // A lock is no unlock: lockdown does not stop it.
        _ = try await issue.issue(RemoteDoorCommand(door: "front-door", action: .lock, reason: "end it"), at: Date())
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aDoorWaitingOnThePushChannelGetsItsCommandSignedForItsNonceAndNoOtherDoorWakes(_ kind: StoreUnderTest.Kind) async throws {
        let under = try await StoreUnderTest.make(kind)
        defer { Task { await under.destroy() } }
        let secrets = ["front-door": WebhookSecret.generate(), "back-door": WebhookSecret.generate()]
        for (door, secret) in secrets { try await under.administration.addDoor(terminalID: door, secret: secret) }
        let keeping = try #require(under.administration as? any ReplicaKeeping)
        let publicKey = ReplicaPublicKey(try await keeping.signingKey().publicKey)
        let administration = under.administration
        // A read interval far longer than the test: only the poke answers the door this soon.
        let versions = ReplicaVersionWatch(
            interval: .seconds(30), read: { try await keeping.replicaVersion() },
            commands: { try await administration.liveDoorCommandsIssued(now: Date()) })
        let watch = DoorWatch(watch: versions, store: under.store, siteSecret: siteSecret, commands: (under.administration, keeping))
        // The doors hold the site's version: only a command wakes them.
        let version = try await keeping.replicaVersion()
        func ask(_ door: String, after: Int64, nonce: String) async throws -> DoorRequestOutcome {
            let admitted = try await watch.gate(watchRequest(door: door, haveCommand: after, nonce: nonce, secret: secrets[door], version: version)).get()
            return await watch.answer(admitted)
        }
        let (nonce, otherNonce) = (DoorCommand.makeNonce(), DoorCommand.makeNonce())
        async let front = ask("front-door", after: 0, nonce: nonce)
        async let back = ask("back-door", after: 0, nonce: otherNonce)
        #expect(await eventually { versions.waiting == 2 })
        let issuedAt = ContinuousClock.now
        let stored = try await commands(under, poke: versions.poke).issue(
            RemoteDoorCommand(door: "front-door", action: .unlock, reason: "visitor"), at: Date())
        let answer = try #require(await front.json)
        let took = ContinuousClock.now - issuedAt
        #expect(took < .seconds(5), "answered by the poke, not the 30 s read: \(took)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any])
        let signed = try (object["commands"] as? [Any] ?? []).map { try SignedDoorCommand(jsonObject: $0) }
        #expect(signed.count == 1)
        let command = try signed[0].open(with: ReplicaTrust(current: publicKey))
        #expect(command.id == stored.id && command.terminalID == "front-door" && command.nonce == nonce && command.action == .unlock)
        #expect(command.seconds == nil, "the door's own unlock time")
        #expect(versions.waiting == 1, "the back door still waits")
        // The front door's next request says it took it: marked delivered, not sent again.
        let next = try #require(await ask("front-door", after: stored.id, nonce: DoorCommand.makeNonce()).json)
        let nextObject = try #require(try JSONSerialization.jsonObject(with: Data(next)) as? [String: Any])
        #expect((nextObject["commands"] as? [Any])?.isEmpty == true)
        #expect(try await under.administration.recentDoorCommands(terminal: "front-door", limit: 1).first?.deliveredAt != nil)
        let backAnswer = try #require(await back.json)
        #expect(String(decoding: backAnswer, as: UTF8.self).contains("\"commands\":[]"))
        print("remote command: a waiting door was answered \(took) after the command was stored")
    }

    @Test func aDoorThatSendsNoNonceGetsNoCommandAndHaveCommandAloneIsRefused() async throws {
        let under = try await StoreUnderTest.make(.sqlite)
        defer { Task { await under.destroy() } }
        let keeping = try #require(under.administration as? any ReplicaKeeping)
        let watch = DoorWatch(
            watch: ReplicaVersionWatch(read: { try await keeping.replicaVersion() }), store: under.store, siteSecret: siteSecret,
            commands: (under.administration, keeping))
        let body = Array("{\"terminal_id\":\"front-door\",\"have_version\":0,\"have_command\":3}".utf8)
        let id = "msg_\(UUID().uuidString)"
        let seconds = Int(Date().timeIntervalSince1970)
        let request = ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: WebhookSignature.sign(id: id, timestamp: seconds, body: body, secret: siteSecret), body: body)
        let answer = await watch.answer(try await watch.gate(request).get())
        #expect(answer.text.contains("have_command needs a nonce"), "\(answer)")
        let short = await watch.answer(try await watch.gate(watchRequest(door: "front-door", haveCommand: 0, nonce: "abc")).get())
        #expect(short.text.contains("nonce must be"), "\(short)")
    }
}
