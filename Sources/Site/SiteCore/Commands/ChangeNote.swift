/// What a change kept but the administrator who made it should hear of. Each front end says
/// it its own way: the command line on standard error, the console beside its notice, the
/// API in the answer's `notes`.
public enum ChangeNote: Sendable, Equatable, CustomStringConvertible {
    /// A door the change names that the site has not heard of (``KnownDoors``): the change
    /// is kept, as a setting may name a door before it is installed, and this catches a
    /// mistyped one.
    case unknownDoor(String)

    /// The note as a sentence, without the command line's `warning: `.
    public var description: String {
        switch self {
        case .unknownDoor(let door):
            "no door '\(door)' has reported to this site yet (forwarded events or a status) or has a secret of its own; "
                + "the setting is kept and applies once a door with that terminal_id connects (check the id if that door is installed)"
        }
    }

    /// The doors of a note about doors (the console carries them across its redirect).
    public var door: String? {
        switch self {
        case .unknownDoor(let door): door
        }
    }
}
