import Crypto
import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// `POST /v1/credentials` over each real store: a door's replica holds exactly who may open
/// it (hashes, rules, schedules), signed with the verifier's key; the version moves with
/// every change of who may enter and with nothing else; only a door's own signature gets it.
@Suite("Credential replicas, on SQLite and PostgreSQL", .heavy)
struct CredentialReplicaTests {
    let siteSecret = WebhookSecret.generate()
    let clock = TestWallClock()

    func hash(_ pin: String) throws -> PINHash { try PINHash.make(pin: SecretDigits(ascii: pin)!, iterations: 1_000) }

    func request(terminal: String, have: Int64, secret: WebhookSecret?) -> ReferenceVerifier.Incoming {
        request(terminal: terminal, haveText: String(have), secret: secret)
    }

    /// With `have_version` written as `haveText` (a JSON value).
    func request(terminal: String, haveText: String, secret: WebhookSecret?) -> ReferenceVerifier.Incoming {
        let body = Array("{\"terminal_id\":\"\(terminal)\",\"have_version\":\(haveText)}".utf8)
        let id = "msg_\(UUID().uuidString)"
        let seconds = Int(clock.now.timeIntervalSince1970)
        return ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: secret.map { WebhookSignature.sign(id: id, timestamp: seconds, body: body, secret: $0) }, body: body)
    }

    func keeping(_ store: StoreUnderTest) throws -> any ReplicaKeeping { try #require(store.administration as? any ReplicaKeeping) }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func theVersionMovesWithWhoMayEnterAndWithNothingElse(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let keeping = try keeping(store)
        var version = try await keeping.replicaVersion()
        func moved(_ change: () async throws -> Void) async throws -> Bool {
            try await change()
            let now = try await keeping.replicaVersion()
            defer { version = now }
            return now > version
        }
        #expect(try await moved { try await store.administration.add(name: "ann", hash: try hash("4821"), tag: nil) })
        #expect(try await moved { try await store.administration.setSchedule(name: "office", spec: "mon-fri 08:00-18:00") })
        #expect(try await moved { _ = try await store.administration.setAccess(user: "ann") { $0.schedule = "office" } })
        #expect(try await moved { _ = try await store.administration.setAccess(user: "ann") { $0.disabled = true } })
        #expect(try await moved { try await store.administration.setTimeZone("Europe/Berlin") })
        #expect(try await moved { try await store.administration.addDoor(terminalID: "front", secret: .generate()) })
        #expect(try await moved { try await store.administration.setHoliday(try Holiday(day: "2027-12-25", words: [])) })
        #expect(try await moved { try await store.administration.setMode(.lockdown, door: "front", by: "test", at: Date()) })
        #expect(try await moved { try await store.administration.setMode(nil, door: "front", by: "test", at: Date()) })
        #expect(try await moved { try await store.administration.removeHoliday(day: SiteDate(parsing: "2027-12-25")!) })
        #expect(try await moved { _ = try await store.administration.remove(name: "ann") })
        // What happens at the doors does not change the replica.
        try await store.administration.add(name: "bo", hash: try hash("4822"), tag: nil)
        try await store.administration.setTOTP(name: "bo", secret: TOTP.newSecret())
        version = try await keeping.replicaVersion()
        #expect(
            try await !moved {
                _ = try await store.store.commitAttempt(terminal: "front", policy: LockoutPolicy()) { _, transaction in
                    _ = try await transaction.claimTOTPStep(user: "bo", step: 100)
                    try await transaction.audit([("decision", "granted")])
                }
                try await store.store.audit([("decision", "rejected")])
            })
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aDoorsReplicaHoldsWhoMayOpenItSignedWithTheOneKey(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let admin = store.administration
        try await admin.setTimeZone("UTC")
        try await admin.setSchedule(name: "office", spec: "mon-fri 08:00-18:00")
        try await admin.setSchedule(name: "night", spec: "daily 22:00-06:00")
        for name in ["ann", "ben", "cat", "dan", "eve"] { try await admin.add(name: name, hash: try hash("4821"), tag: nil) }
        try await admin.setTOTP(name: "ann", secret: TOTP.newSecret())
        _ = try await admin.setAccess(user: "ben") {
            $0.doors = ["back"]
            $0.schedule = "night"
        }
        _ = try await admin.setAccess(user: "cat") { $0.disabled = true }
        _ = try await admin.setAccess(user: "dan") { $0.validUntil = SiteDate(parsing: "2020-01-01") }
        _ = try await admin.setAccess(user: "eve") {
            $0.doors = ["front", "back"]
            $0.schedule = "office"
        }
        try await admin.setDuress(name: "eve", hash: try hash("9999"), tag: nil)
        try await admin.addCard(name: "eve", hash: try hash("12345678"), tag: nil)
        let keeping = try keeping(store)
        let key = try await keeping.signingKey()
        // One key per database: a second call, with another key on offer, keeps the first.
        #expect(try await keeping.replicaSigningKey { Array(Curve25519.Signing.PrivateKey().rawRepresentation) } == Array(key.rawRepresentation))
        let service = CredentialService(
            keeping: keeping, administration: admin, store: store.store, siteSecret: siteSecret, clock: clock.read)
        let reply = await service.handle(request(terminal: "front", have: 0, secret: siteSecret))
        #expect(reply.result == "ok")
        let signed = try SignedReplica(json: try #require(reply.json))
        guard case .replica(let replica) = try signed.open(with: try await keeping.publicKey()) else {
            Issue.record("a door with no replica gets the whole replica")
            return
        }
        let current = try await keeping.replicaVersion()
        #expect(replica.terminalID == "front" && replica.version == current && replica.timeZone == "UTC")
        #expect(replica.entries.map { "\($0.user):\($0.kind)" } == ["ann:pin", "eve:pin", "eve:duress", "eve:card"])
        #expect(replica.entries[0].hash.matches(SecretDigits(ascii: "4821")!) && replica.entries[2].hash.matches(SecretDigits(ascii: "9999")!))
        #expect(replica.rules == ["eve": "doors=back,front schedule=office"] && replica.schedules == ["office": "mon-fri 08:00-18:00"])
        let text = String(decoding: signed.payload, as: UTF8.self)
        // Names and keys are looked for as JSON strings: the hashes' random salts can spell "dan" unquoted.
        for word in ["totp", "ben", "cat", "dan"] { #expect(!text.contains("\"\(word)")) }
        #expect(replica.holidays.isEmpty && replica.mode == nil && !text.contains("\"requires"))
        // The door already holds it: a signed confirmation renews its age.
        let publicKey = try await keeping.publicKey()
        let same = try SignedReplica(json: await service.handle(request(terminal: "front", have: replica.version, secret: siteSecret)).json ?? [])
        #expect(try same.open(with: publicKey) == .confirmation(terminalID: "front", version: replica.version, issuedAt: clock.now))
        // Tampered or signed by another key: refused.
        var payload = signed.payload
        payload[payload.count / 2] ^= 0x01
        #expect(throws: ReplicaError.self) { try SignedReplica(payload: payload, signature: signed.signature).open(with: publicKey) }
        #expect(throws: ReplicaError.self) { try signed.open(with: ReplicaPublicKey(Curve25519.Signing.PrivateKey().publicKey)) }
        // Holidays from yesterday on, with the schedules they name, and the door's mode: the
        // rules the door must apply are listed in `requires`.
        try await admin.setSchedule(name: "short", spec: "daily 10:00-12:00")
        for day in ["2020-12-25", "2027-01-14", "2027-12-24"] { try await admin.setHoliday(try Holiday(day: day, words: ["schedule=short"])) }
        try await admin.setMode(.lockdown, door: nil, by: "ops", at: clock.now)
        let ruled = try await service.replica(for: "front", now: clock.now)
        #expect(ruled.holidays == ["2027-01-14": "schedule=short", "2027-12-24": "schedule=short"] && ruled.schedules["short"] == "daily 10:00-12:00")
        #expect(ruled.mode?.mode == .lockdown && ruled.mode?.setBy == "ops" && ruled.requires.map(\.rawValue) == ["holidays", "lockdown"])
        // The site's offline check travels too, and moves the version.
        let before = try await keeping.replicaVersion()
        try await admin.setModeCheck(seconds: 300)
        #expect(try await keeping.replicaVersion() > before)
        #expect(try await service.replica(for: "front", now: clock.now).modeCheck == 300)
        await #expect(throws: UserEditError.self) { try await admin.setModeCheck(seconds: 5) }
        try await admin.setModeCheck(seconds: nil)
        #expect(try await admin.siteRules().modeCheck == nil)
        // The door's unlock schedule travels with its schedule; another door's does not.
        try await admin.setSchedule(name: "opening", spec: "mon-sat 08:00-18:00")
        try await admin.setUnlock(door: "front", DoorUnlockSchedule(schedule: "opening", firstIn: true))
        try await admin.setUnlock(door: "back", DoorUnlockSchedule(schedule: "short"))
        let front = try await service.replica(for: "front", now: clock.now)
        #expect(front.unlock == DoorUnlockSchedule(schedule: "opening", firstIn: true) && front.schedules["opening"] == "mon-sat 08:00-18:00")
        #expect(front.requires.contains(.unlockSchedule))
        #expect(try await admin.siteRules().unlockSchedules.keys.sorted() == ["back", "front"])
        await #expect(throws: UserEditError.self) { try await admin.removeSchedule(name: "opening") }
        await #expect(throws: UserEditError.self) { try await admin.setUnlock(door: "side", DoorUnlockSchedule(schedule: "nope")) }
        try await admin.removeUnlock(door: "front")
        #expect(try await service.replica(for: "front", now: clock.now).unlock == nil)
        await #expect(throws: UserEditError.self) { try await admin.removeUnlock(door: "front") }
        // A card-and-PIN rule travels to its door, with its schedule, moves the version, and
        // is listed in `requires`; a door without one gets none.
        let withoutRule = try await keeping.replicaVersion()
        try await admin.setSchedule(name: "nights", spec: "daily 20:00-24:00")
        try await admin.setCardAndPIN(door: "front", CardAndPINRule(schedule: "nights"))
        #expect(try await keeping.replicaVersion() > withoutRule)
        let twoFactor = try await service.replica(for: "front", now: clock.now)
        #expect(twoFactor.cardAndPIN == CardAndPINRule(schedule: "nights") && twoFactor.schedules["nights"] == "daily 20:00-24:00")
        #expect(twoFactor.requires.contains(.cardPIN))
        let encoded = try ReplicaMessage.replica(twoFactor).encoded()
        #expect(try ReplicaMessage(decoding: encoded) == .replica(twoFactor))
        #expect(try await service.replica(for: "back", now: clock.now).cardAndPIN == nil)
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func taggedCredentialsTravelWithTheTagKeyAndTagsCutToTheDoorsSize(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let admin = store.administration
        let keeping = try keeping(store)
        let pins = ["ann": "4821", "ben": "5932", "cat": "6043", "dan": "7154", "eve": "8265"]
        for (name, pin) in pins.sorted(by: { $0.key < $1.key }) {
            let made = try hash(pin)
            try await admin.add(name: name, hash: made, tag: nil)
            if name != "eve" {
                let version = try await keeping.replicaVersion()
                try await keeping.tagForReplica(name: name, hash: made, value: SecretDigits(ascii: pin)!, kind: .pin)
                #expect(try await keeping.replicaVersion() > version, "a new tag is a change doors must get")
            }
        }
        let tagKey = try await keeping.tagKey()
        #expect(try await keeping.tagKey().raw == tagKey.raw, "made once, kept")
        let service = CredentialService(
            keeping: keeping, administration: admin, store: store.store, siteSecret: siteSecret, clock: clock.read)
        let signed = try SignedReplica(json: await service.handle(request(terminal: "front", have: 0, secret: siteSecret)).json ?? [])
        guard case .replica(let replica) = try signed.open(with: try await keeping.publicKey()) else {
            Issue.record("expected a whole replica")
            return
        }
        // Four tagged entries: 2 + 4 bits each; eve, added without a tag, is checked in full.
        #expect(replica.tagKey == tagKey.raw && replica.tagBits == 6)
        for entry in replica.entries {
            if entry.user == "eve" {
                #expect(entry.tag == nil)
            } else {
                let full = tagKey.tag(SecretDigits(ascii: pins[entry.user]!)!, kind: .pin)
                #expect(entry.tag == ReplicaTagKey.cut(full, bits: 6) && entry.tag?.count == 2, "\(entry.user)")
            }
        }
        #expect(!String(decoding: signed.payload, as: UTF8.self).contains(tagKey.tag(SecretDigits(ascii: "4821")!, kind: .pin)), "never the full tag")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func onlyTheDoorsOwnSignatureGetsItsReplica(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let keeping = try keeping(store)
        let frontSecret = WebhookSecret.generate()
        try await store.administration.addDoor(terminalID: "front", secret: frontSecret)
        let service = CredentialService(
            keeping: keeping, administration: store.administration, store: store.store, siteSecret: siteSecret,
            clock: clock.read)
        #expect(await service.handle(request(terminal: "front", have: 0, secret: frontSecret)).result == "ok")
        #expect(await service.handle(request(terminal: "front", have: 0, secret: siteSecret)).result == "unauthenticated")
        #expect(await service.handle(request(terminal: "back", have: 0, secret: frontSecret)).result == "unauthenticated")
        #expect(await service.handle(request(terminal: "back", have: 0, secret: nil)).result == "unauthenticated")
        let unsignedSite = CredentialService(
            keeping: keeping, administration: store.administration, store: store.store, siteSecret: nil, clock: clock.read)
        let refused = await unsignedSite.handle(request(terminal: "back", have: 0, secret: nil))
        #expect(refused.result == "unauthenticated" && refused.text.contains("a replica is given only to a signed request"))
        let bad = await service.handle(request(terminal: "front", have: -1, secret: frontSecret))
        #expect(bad.result == "malformed" && bad.text.contains("have_version"))
        #expect(await service.handle(request(terminal: "front", haveText: "0,\"extra\":1", secret: frontSecret)).result == "malformed", "another property")
        // A captured request answered once: the same webhook-id again is a replay.
        let captured = request(terminal: "front", have: 0, secret: frontSecret)
        #expect(await service.handle(captured).result == "ok")
        let replayed = await service.handle(captured)
        #expect(replayed.result == "replayed" && replayed.text.contains("replay"))
        for notAVersion in ["true", "false", "1.5", "\"1\"", "null"] {
            #expect(await service.handle(request(terminal: "front", haveText: notAVersion, secret: frontSecret)).result == "malformed", "\(notAVersion)")
        }
    }
}

/// A PIN chosen at a door reaches the doors' replicas with the replica tag of the new PIN
/// (never the old one's), so a door offline finds it with one HMAC.
extension CredentialReplicaTests {
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aPINChosenAtTheDoorTravelsWithItsOwnReplicaTag(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let admin = store.administration
        let keeping = try keeping(store)
        for (name, pin) in [("ann", "4821"), ("ben", "5932")] {
            let made = try hash(pin)
            try await admin.add(name: name, hash: made, tag: nil)
            try await keeping.tagForReplica(name: name, hash: made, value: SecretDigits(ascii: pin)!, kind: .pin)
        }
        try await admin.issueEnrolmentCode(user: "ann", hash: try hash("48213907"), lookupTag: nil, expires: clock.now.addingTimeInterval(600))
        let before = try await keeping.replicaVersion()
        let reference = ReferenceVerifier(settings: ReferenceVerifier.Settings(secret: siteSecret), store: store.store, clock: clock.read)
        let body = EnrolmentRequestBody.encode(
            terminalID: "front", code: SecretDigits(ascii: "48213907")!, pin: SecretDigits(ascii: "3579")!, attemptID: UUID(), enteredAt: clock.now)
        let seconds = Int(clock.now.timeIntervalSince1970)
        let id = UUID().uuidString
        let request = ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: WebhookSignature.sign(id: id, timestamp: seconds, body: body, secret: siteSecret), body: body, terminal: "front")
        #expect(await reference.enrol(request) == .enrolment(.pinSet(user: "ann")))
        #expect(try await keeping.replicaVersion() > before, "doors must learn the new PIN")
        let service = CredentialService(
            keeping: keeping, administration: admin, store: store.store, siteSecret: siteSecret, clock: clock.read)
        let replica = try await service.replica(for: "front", now: clock.now)
        let tagKey = try await keeping.tagKey()
        let ann = try #require(replica.entries.first { $0.user == "ann" })
        #expect(ann.tag == ReplicaTagKey.cut(tagKey.tag(SecretDigits(ascii: "3579")!, kind: .pin), bits: replica.tagBits))
        #expect(ann.hash.matches(SecretDigits(ascii: "3579")!))
        #expect(try await keeping.replicaTags()[ann.hash.description] == tagKey.tag(SecretDigits(ascii: "3579")!, kind: .pin), "the full tag, of the new PIN")
    }
}

extension CredentialReplicaTests {
    /// Twenty doors asking at once for their whole replicas of one version share one read of
    /// the site (``ReplicaBuilds``), and each still gets its own: who may open it and nobody
    /// else, as a replica made for it alone. A change moves the version and the next door's
    /// whole replica reads the site again, with the change in it.
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func doorsAskingForOneVersionShareOneReadAndEachGetsItsOwnReplica(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let admin = store.administration
        let doors = (0..<20).map { "door-\($0)" }
        for (index, door) in doors.enumerated() {
            try await admin.add(name: "user-\(index)", hash: try hash("4821"), tag: nil)
            _ = try await admin.setAccess(user: "user-\(index)") { $0.doors = [door] }
        }
        try await admin.add(name: "everywhere", hash: try hash("4822"), tag: nil)
        let keeping = try keeping(store)
        let publicKey = try await keeping.publicKey()
        let service = CredentialService(keeping: keeping, administration: admin, store: store.store, siteSecret: siteSecret, clock: clock.read)
        let replicas = try await withThrowingTaskGroup(of: CredentialReplica.self) { group in
            for door in doors {
                group.addTask {
                    let reply = await service.handle(request(terminal: door, have: 0, secret: siteSecret))
                    guard case .replica(let replica) = try SignedReplica(json: try #require(reply.json)).open(with: publicKey) else {
                        throw ReplicaError("\(door) got no whole replica")
                    }
                    return replica
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(await service.builds.reads == 1, "one read of the site for 20 doors of one version")
        for replica in replicas {
            let index = try #require(doors.firstIndex(of: replica.terminalID))
            #expect(Set(replica.entries.map(\.user)) == ["user-\(index)", "everywhere"], "\(replica.terminalID)")
            #expect(replica.rules == ["user-\(index)": "doors=\(replica.terminalID)"])
        }
        _ = try await admin.setAccess(user: "everywhere") { $0.disabled = true }
        let after = try await service.replica(for: "door-3", now: clock.now)
        #expect(await service.builds.reads == 2)
        let current = try await keeping.replicaVersion()
        #expect(after.entries.map(\.user) == ["user-3"] && after.version == current)
    }
}
