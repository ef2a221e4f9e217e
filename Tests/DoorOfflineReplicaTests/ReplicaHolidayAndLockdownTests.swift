import Crypto
import DoorOfflineReplica
import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadStorage
import Testing

/// A door deciding offline applies the holidays and the mode its replica carries, as the
/// server would.
extension ReplicaKeeperTests {
    func ruledReplica(version: Int64, holidays: [String: String], mode: DoorModes.Setting?, modeCheck: Int? = nil) throws -> SignedReplica {
        let entries = try [("bob", "1470"), ("carl", "2581"), ("dana", "3691")].map { user, pin in
            CredentialReplica.Entry(user: user, kind: "pin", hash: try PINHash.make(pin: SecretDigits(ascii: pin)!, iterations: 1000))
        }
        return try SignedReplica(
            signing: .replica(
                CredentialReplica(
                    terminalID: "front-door", version: version, issuedAt: issued, timeZone: "UTC", schedules: ["any-day": "daily"],
                    rules: ["bob": "schedule=any-day", "dana": "responder"], entries: entries, holidays: holidays, mode: mode,
                    modeCheck: modeCheck)), with: key)
    }

    @Test func aReplicasHolidaysAndLockdownDecideOffline() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let keeper = keeper(wallTrusted: true)
        // The keeper's wall clock: issued + 600 s; that date is the holiday.
        let today = String(UTCTimestamp.rfc3339(issued.addingTimeInterval(600)).prefix(10))
        let lockdown = DoorModes.Setting(mode: .lockdown, setBy: "ops", setAt: issued)
        let signed = try ruledReplica(version: 3, holidays: [today: ""], mode: lockdown)
        #expect(String(decoding: signed.payload, as: UTF8.self).contains("\"requires\":[\"holidays\",\"lockdown\"]"))
        try keeper.accept(signed, receivedAt: boot.instant)
        #expect(try await decide(keeper, "1470") == .denied(reason: .lockdown))
        #expect(try await decide(keeper, "2581") == .denied(reason: .lockdown))
        #expect(try await decide(keeper, "3691") == .granted(user: "dana"))
        // The lockdown lifted at the next sync; the holiday still refuses bob's schedule.
        try keeper.accept(try ruledReplica(version: 4, holidays: [today: ""], mode: nil), receivedAt: boot.instant)
        #expect(try await decide(keeper, "1470") == .denied(reason: .holiday))
        #expect(try await decide(keeper, "2581") == .granted(user: "carl"))
        try keeper.accept(try ruledReplica(version: 5, holidays: [:], mode: nil), receivedAt: boot.instant)
        #expect(try await decide(keeper, "1470") == .granted(user: "bob"))
    }

    @Test func withTheSitesOfflineCheckADoorStopsDecidingOnceItsLastSyncIsTooOld() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let keeper = keeper()  // the wall clock not trusted: the age counts on the boot clock
        let signed = try ruledReplica(version: 3, holidays: [:], mode: nil, modeCheck: 60)
        #expect(String(decoding: signed.payload, as: UTF8.self).contains("\"requires\":[\"lockdown\"]"))
        try keeper.accept(signed, receivedAt: boot.instant)
        boot.advance(seconds: 59)
        #expect(try await decide(keeper, "2581") == .granted(user: "carl"))
        boot.advance(seconds: 2)
        #expect(keeper.problem()?.contains("only within 60 s of a sync (a lockdown may have been set since)") == true, "\(keeper.problem() ?? "")")
        #expect(throws: (any Error).self) { try keeper.offlineVerifier().get() }
        // A confirmation (a sync that found nothing new) renews it.
        try keeper.accept(try confirmation(version: 3, after: 61), receivedAt: boot.instant)
        #expect(try await decide(keeper, "2581") == .granted(user: "carl"))
    }
}

/// A door deciding offline asks for a card and its holder's PIN when its replica says so.
extension ReplicaKeeperTests {
    @Test func aReplicasCardAndPINRuleDecidesOffline() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let keeper = keeper(wallTrusted: true)
        let hash = { (value: String) in try PINHash.make(pin: SecretDigits(ascii: value)!, iterations: 1000) }
        let entries = [
            CredentialReplica.Entry(user: "bob", kind: "pin", hash: try hash("1470")),
            CredentialReplica.Entry(user: "bob", kind: "card", hash: try hash("00445566")),
            CredentialReplica.Entry(user: "carl", kind: "pin", hash: try hash("2581")),
        ]
        let replica = CredentialReplica(
            terminalID: "front-door", version: 3, issuedAt: issued, timeZone: "UTC", schedules: [:], rules: [:], entries: entries,
            cardAndPIN: CardAndPINRule())
        let signed = try SignedReplica(signing: .replica(replica), with: key)
        #expect(String(decoding: signed.payload, as: UTF8.self).contains("\"card_pin\":\"always\""))
        try keeper.accept(signed, receivedAt: boot.instant)
        let (verifier, _) = try keeper.offlineVerifier().get()
        let attempt = { (kind: AttemptKind, value: String, pin: String?) in
            VerificationAttempt(terminalID: "front-door", kind: kind, value: SecretDigits(ascii: value)!, pin: pin.map { SecretDigits(ascii: $0)! })
        }
        #expect(await verifier.verify(attempt(.card, "00445566", nil)) == .denied(reason: .secondFactorRequired))
        #expect(await verifier.verify(attempt(.pin, "2581", nil)) == .denied(reason: .secondFactorRequired))
        #expect(await verifier.verify(attempt(.cardPIN, "00445566", "1470")) == .granted(user: "bob"))
        #expect(await verifier.verify(attempt(.cardPIN, "00445566", "2581")) == .denied())
        // A card_pin rule naming a schedule the replica lacks is refused whole.
        let broken = Array(
            #"{"kind":"replica","terminal_id":"front-door","version":4,"issued_at":"2026-11-27T10:00:00.000Z","schedules":{},"rules":{},"entries":[],"card_pin":"schedule=nights"}"#
                .utf8)
        #expect(throws: ReplicaError("card_pin must be \"always\" or \"schedule=NAME\" naming one of the replica's schedules")) {
            try ReplicaMessage(decoding: broken)
        }
    }
}
