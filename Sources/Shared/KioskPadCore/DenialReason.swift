/// Why a matched credential was refused, by the word the audit record, the door's journal and
/// the metrics use. On the wire to a door it is a plain `denied`, with one exception: a door
/// that asks for a card and then its holder's PIN is told `second_factor_required`, so it asks
/// for the PIN (``wireReasons``).
public enum DenialReason: String, Sendable, Equatable, CaseIterable {
    case disabled
    case notPermittedHere = "not_permitted_here"
    case clockNotTrusted = "clock_not_trusted"
    case notYetValid = "not_yet_valid"
    case expired
    case outsideSchedule = "outside_schedule"
    /// A holiday: the user's schedule does not apply today (or the holiday's own excludes now).
    case holiday
    /// The door is in lockdown and the user is not a responder.
    case lockdown
    /// The door asks for a card and its holder's PIN; one of them alone (or a code) was offered.
    case secondFactorRequired = "second_factor_required"
    /// A visitor pass whose every use was made (another door took its last one meanwhile).
    case usedUp = "used_up"
    /// Not a refusal of anyone: the door was armed to learn a card, and this card, which
    /// matched nobody, is now the armed user's. The door shows it and stays shut.
    case cardEnrolled = "card_enrolled"

    /// The reasons a verifier's answer carries to the door (`"reason"` in `/verify`'s answer);
    /// any other is the site's to know, and a door drops it.
    public static let wireReasons: Set<DenialReason> = [.secondFactorRequired, .cardEnrolled]
}

/// Why the site refused a PIN chosen at the door (`POST /v1/enrol`'s `reason`).
public enum EnrolmentRefusal: String, Sendable, Equatable, CaseIterable {
    /// No live enrolment code matched; counts toward the terminal's lockout like a wrong PIN.
    case invalidCode = "invalid_code"
    /// One digit throughout or a run (``WeakPIN``); the code stays usable.
    case weakPIN = "weak_pin"
    /// The user's PIN or duress PIN now; the code stays usable.
    case previousPIN = "previous_pin"
    /// The terminal is locked out.
    case lockedOut = "locked_out"
}
