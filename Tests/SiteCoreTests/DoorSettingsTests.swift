import Crypto
import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// Settings a site gives its adopted doors, over each real store: set for the site and for a
/// door (one audit record each, names checked before anything is stored), given to ten doors
/// at their check-in signed with the replica key, each door's report kept (running, refused
/// with its reason), and a refused version not given again.
@Suite("Settings from the site, on SQLite and PostgreSQL", .heavy)
struct DoorSettingsTests {
    let clock = TestWallClock()

    func editing(_ store: StoreUnderTest) -> DoorSettingsEditing {
        DoorSettingsEditing(
            administration: store.administration,
            changes: AdministratorChanges(store: store.store, by: .console("ops", role: .owner, from: "test"), now: clock.read))
    }

    /// A check-in from `door` (its own `secret`) reporting `running` and `refused`: the answer's JSON.
    func checkIn(
        _ store: StoreUnderTest, _ door: String, secret: WebhookSecret, running: Int64, refused: (Int64, String)? = nil
    ) async throws -> [String: Any] {
        let refusal = refused.map { ",\"settings_refused\":{\"version\":\($0.0),\"reason\":\"\($0.1)\"}" } ?? ""
        let body = Array("{\"terminal_id\":\"\(door)\",\"settings_version\":\(running)\(refusal)}".utf8)
        let id = UUID().uuidString
        let seconds = Int(clock.now.timeIntervalSince1970)
        let request = ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: WebhookSignature.sign(id: id, timestamp: seconds, body: body, secret: secret), body: body, terminal: door)
        let keeping = try #require(store.administration as? any ReplicaKeeping)
        let endpoint = DoorCheckIn(
            store: store.store, settings: store.administration, replica: keeping, siteSecret: nil, interval: 60, clock: clock.read)
        guard case .success(let admitted) = await endpoint.gate(request), case .done(let json) = await endpoint.answer(admitted) else {
            throw UserEditError(description: "check-in refused")
        }
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        if let signed = answer["settings"] as? [String: Any] {
            let payloadText = try #require(signed["payload"] as? String)
            let signatureText = try #require(signed["signature"] as? String)
            let payload = try #require(Data(base64Encoded: payloadText))
            let signature = try #require(Data(base64Encoded: signatureText))
            #expect(try await keeping.publicKey().key.isValidSignature(signature, for: payload), "signed with the site's replica key")
        }
        return answer
    }

    /// The settings an answer carries (their signature checked by ``checkIn``); nil when none.
    func settings(_ answer: [String: Any]) throws -> [String: Any]? {
        guard let signed = answer["settings"] as? [String: Any] else { return nil }
        let payloadText = try #require(signed["payload"] as? String)
        let payload = try #require(Data(base64Encoded: payloadText))
        return try JSONSerialization.jsonObject(with: payload) as? [String: Any]
    }

    /// A value a door's checker would refuse is refused at the site, naming the key and what
    /// the door accepts; so is a combination a door would refuse (issue 79).
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aSettingOutsideWhatADoorAcceptsIsRefusedAtTheSite(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        try await store.administration.addDoor(terminalID: "lobby", secret: .generate())
        let refusals: [(door: String?, set: [String], says: String)] = [
            ("lobby", ["entry.max_length=3"], "entry.max_length: 3 is outside what a door accepts (4 to 12)"),
            (nil, ["entry.timeout_s=0.5"], "entry.timeout_s: 0.5 is outside what a door accepts (1 to 600)"),
            (nil, ["lockout.max_failures=0"], "lockout.max_failures: 0 is outside"),
            (nil, ["verifier.offline.mode=sometimes"], "verifier.offline.mode: 'sometimes' must be one of off, fallback"),
            ("lobby", ["entry.min_length=9"], "entry.min_length=9 needs entry.max_length (9 to 12) beside it"),
            (nil, ["entry.min_length=8", "entry.max_length=6"], "entry.min_length (8) is more than entry.max_length (6)"),
            (nil, ["door.unlock_s=60", "door.max_unlock_s=30"], "door.unlock_s (60) is more than door.max_unlock_s (30)"),
        ]
        for refusal in refusals {
            await #expect {
                try await editing(store).change(door: refusal.door, set: refusal.set, remove: [])
            } throws: { error in
                "\(error)".contains(refusal.says)
            }
        }
        #expect(try await store.auditRecords().filter { $0["action"] == "settings_set" }.isEmpty, "nothing stored, nothing audited")
        // With its maximum beside it, the minimum is taken; a door's own maximum below the
        // site's new minimum is refused for that door.
        try await editing(store).change(door: "lobby", set: ["entry.max_length=6"], remove: [])
        await #expect {
            try await editing(store).change(door: nil, set: ["entry.min_length=8", "entry.max_length=10"], remove: [])
        } throws: { error in
            "\(error)".contains("entry.min_length (8) is more than entry.max_length (6) in the settings door 'lobby' (with its own settings) gets")
        }
        try await editing(store).change(door: nil, set: ["entry.min_length=6", "entry.max_length=10"], remove: [])
        #expect(try await store.administration.settings(scope: DoorSettings.siteScope).values["entry.min_length"] == .integer(6))
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func settingsReachTenDoorsAndEachReportIsKept(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        var secrets: [String: WebhookSecret] = [:]
        for index in 1...10 {
            let door = "door-\(index)"
            secrets[door] = .generate()
            try await store.administration.addDoor(terminalID: door, secret: secrets[door]!)
        }
        let first = try await editing(store).change(door: nil, set: ["entry.timeout_s=20", "display.texts.enter_pin=PIN please"], remove: [])
        let own = try await editing(store).change(door: "door-3", set: ["entry.timeout_s=30"], remove: [])
        #expect(own == first + 1)
        for (door, secret) in secrets {
            let given = try #require(try settings(try await checkIn(store, door, secret: secret, running: 0)))
            #expect(given["kind"] as? String == "settings" && given["terminal_id"] as? String == door && given["version"] as? Int == Int(own))
            let values = try #require(given["settings"] as? [String: Any])
            #expect(values["entry.timeout_s"] as? Int == (door == "door-3" ? 30 : 20) && values["display.texts.enter_pin"] as? String == "PIN please")
            // Running it now: nothing more to give.
            #expect(try settings(try await checkIn(store, door, secret: secret, running: own)) == nil)
        }
        let states = try await store.administration.settingsStates()
        #expect(states.count == 10 && states.values.allSatisfy { $0.running == own && $0.refused == nil })

        // door-5 refuses the next version: kept with its reason, and that version is not given again.
        let next = try await editing(store).change(door: nil, set: ["entry.min_length=9", "entry.max_length=9"], remove: [])
        let offered = try await checkIn(store, "door-5", secret: secrets["door-5"]!, running: own)
        #expect(try settings(offered)?["version"] as? Int == Int(next))
        let refusedAnswer = try await checkIn(
            store, "door-5", secret: secrets["door-5"]!, running: own, refused: (next, "entry.min_length: 9 is more than max_length 8"))
        #expect(try settings(refusedAnswer) == nil)
        let state = try #require(try await store.administration.settingsStates()["door-5"])
        #expect(state.running == own && state.refused?.version == next && state.refused?.reason == "entry.min_length: 9 is more than max_length 8")

        let audits = try await store.auditRecords().filter { $0["action"] == "settings_set" }
        #expect(
            audits.map { "\($0["scope"]!) \($0["set"]!) \($0["version"]!)" } == [
                "site display.texts.enter_pin,entry.timeout_s \(first)", "door-3 entry.timeout_s \(own)", "site entry.min_length,entry.max_length \(next)",
            ]
                || audits.map { "\($0["scope"]!) \($0["set"]!) \($0["version"]!)" } == [
                    "site entry.timeout_s,display.texts.enter_pin \(first)", "door-3 entry.timeout_s \(own)", "site entry.min_length,entry.max_length \(next)",
                ])
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aBadSettingIsRefusedNamingItAndNothingIsStored(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let unknown = await #expect(throws: UserEditError.self) { try await editing(store).change(door: nil, set: ["keypad.chip=gpiochip1"], remove: []) }
        #expect(unknown?.description.hasPrefix("'keypad.chip' is not a setting a site gives its doors; they are: ") == true)
        #expect(unknown?.description.contains("entry.timeout_s") == true)
        let kind = await #expect(throws: UserEditError.self) { try await editing(store).change(door: nil, set: ["entry.timeout_s=soon"], remove: []) }
        #expect(kind?.description.hasPrefix("entry.timeout_s: 'soon' must be a number of seconds") == true)
        let flag = await #expect(throws: UserEditError.self) { try await editing(store).change(door: nil, set: ["entry.enrolment=maybe"], remove: []) }
        #expect(flag?.description == "entry.enrolment: 'maybe' must be true or false")
        let door = await #expect(throws: UserEditError.self) { try await editing(store).change(door: "frnot-door", set: ["entry.timeout_s=5"], remove: []) }
        #expect(door?.description.contains("is not a door of this site") == true)
        let bare = await #expect(throws: UserEditError.self) { try await editing(store).change(door: nil, set: ["entry.timeout_s"], remove: []) }
        #expect(bare?.description.contains("must be KEY=VALUE") == true)
        #expect(try await store.administration.effectiveSettings(door: "x").version == 0, "nothing stored, no version made")
        #expect(try await store.auditRecords().filter { $0["action"] == "settings_set" }.isEmpty)
        // Removing a key: the site's settings are empty again.
        try await editing(store).change(door: nil, set: ["lockout.max_failures=3"], remove: [])
        try await editing(store).change(door: nil, set: [], remove: ["lockout.max_failures"])
        #expect(try await store.administration.settings(scope: DoorSettings.siteScope).values.isEmpty)
    }
}
