import Foundation
import KioskPadAccess
import KioskPadCore
import Testing

/// The protocol's words, each typed once, hold the strings the wire, the audit, the journal
/// and the metrics have always carried: a renamed case must not change what doors, sites and
/// dashboards read. The door's record types and decisions, which the site reads by the same
/// types (issue 79), and the door's docs name every record type.
@Suite("The protocol's words on the wire")
struct ProtocolWordsTests {
    @Test func everyRecordTypeIsSpelledAsJournalsAndSitesHaveIt() {
        #expect(
            DoorRecordType.allCases.map(\.rawValue) == [
                "attempt", "duress", "lockout", "pin_enrolment", "remote_unlock_refused", "remote_command", "fault", "wiegand_dropped",
                "keypad_failed", "keypad_recovered", "reader_online", "reader_offline", "reader_tamper", "reader_tamper_cleared", "reader_power_failed",
                "reader_power_restored", "reader_refused", "reader_message_dropped", "door_unlocked", "door_locked", "door_opened", "door_closed",
                "held_open", "forced_open", "exit_request", "tamper", "tamper_cleared", "door_mode", "start", "stop", "events_dropped", "status",
                "journal_repaired",
            ])
        #expect(Decision.allCases.map(\.rawValue) == ["granted", "denied", "error"])
        #expect(Decision.answered == [.granted, .denied], "what a verifier answers; error is the door's own")
    }

    @Test func theDoorsDocsNameEveryRecordType() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/door-daemon.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let missing = DoorRecordType.allCases.map(\.rawValue).filter { !text.contains("`\($0)`") }
        #expect(missing.isEmpty, "docs/door-daemon.md does not name: \(missing)")
    }

    @Test func denialReasonsKeepTheirWords() {
        #expect(
            DenialReason.allCases.map(\.rawValue) == [
                "disabled", "not_permitted_here", "clock_not_trusted", "not_yet_valid", "expired", "outside_schedule", "holiday", "lockdown",
                "second_factor_required", "used_up", "card_enrolled",
            ])
        #expect(DenialReason.wireReasons == [.secondFactorRequired, .cardEnrolled])
    }

    @Test func enrolmentRefusalsKeepTheirWords() throws {
        #expect(EnrolmentRefusal.allCases.map(\.rawValue) == ["invalid_code", "weak_pin", "previous_pin", "locked_out"])
        for refusal in EnrolmentRefusal.allCases {
            let body = EnrolmentResponseBody.encode(.refused(refusal))
            #expect(String(decoding: body, as: UTF8.self) == "{\"result\":\"refused\",\"reason\":\"\(refusal.rawValue)\"}")
            #expect(try EnrolmentResponseBody.decode(body) == .refused(refusal))
        }
    }

    @Test func replicaRequirementsKeepTheirNames() {
        #expect(ReplicaRequirement.allCases.map(\.rawValue) == ["holidays", "lockdown", "unlock_schedule", "card_pin", "access_levels"])
        #expect(ReplicaRequirement.needed(holidays: false, lockdown: true, unlockSchedule: false, cardPIN: true) == [.lockdown, .cardPIN])
    }

    @Test func onlyTheWiresReasonReachesTheDoor() throws {
        let decoded = try VerificationResponseBody.decode(Array("{\"decision\":\"denied\",\"reason\":\"second_factor_required\"}".utf8))
        #expect(decoded == .denied(reason: .secondFactorRequired))
        // A reason that is the site's to know (or unknown) is dropped, as before it was typed.
        for reason in ["outside_schedule", "lockdown", "no_such_reason"] {
            let plain = try VerificationResponseBody.decode(Array("{\"decision\":\"denied\",\"reason\":\"\(reason)\"}".utf8))
            #expect(plain == .denied(), "\(reason)")
        }
        let encoded = String(decoding: VerificationResponseBody.encode(granted: false, reason: .secondFactorRequired), as: UTF8.self)
        #expect(encoded == "{\"decision\":\"denied\",\"reason\":\"second_factor_required\"}")
    }
}
