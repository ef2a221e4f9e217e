/// The rules beyond the base ones (doors, schedules, validity, disabled) a site can use, by
/// the names a replica's `requires` lists them under. A door refuses a replica that requires
/// one it does not apply, so it never decides offline by fewer rules than the site; this
/// version applies every case. The site's `requires` and the door's understood set are both
/// this one list.
public enum ReplicaRequirement: String, Sendable, CaseIterable {
    case holidays
    /// A lockdown or release (the site's or the door's own mode), the offline check, responders.
    case lockdown
    case unlockSchedule = "unlock_schedule"
    case cardPIN = "card_pin"
    /// Access levels: a user's rule compiled for the door names several schedules, any of
    /// which admits (``AccessLevels/rule(_:at:)``).
    case accessLevels = "access_levels"

    /// Those of the rules that are in use, in this enum's order.
    public static func needed(holidays: Bool, lockdown: Bool, unlockSchedule: Bool, cardPIN: Bool, accessLevels: Bool = false) -> [ReplicaRequirement] {
        allCases.filter { requirement in
            switch requirement {
            case .holidays: return holidays
            case .lockdown: return lockdown
            case .unlockSchedule: return unlockSchedule
            case .cardPIN: return cardPIN
            case .accessLevels: return accessLevels
            }
        }
    }
}
