import Foundation
import KioskPadAccess
import KioskPadCore

/// "Set a mode": the site's (`door` nil), or one door's; a nil `mode` lets the door follow
/// the site's again.
public struct SetMode: Sendable {
    /// What a door the site has not heard of does to the change.
    public enum UnknownDoor: Sendable {
        /// Kept, with a ``ChangeNote`` (the command line and the console: a door may be set
        /// before it is installed).
        case keepWithNote
        /// Refused, nothing changed (the API: `404`).
        case refuse
    }

    public let mode: DoorMode?
    public let door: String?
    public let ifDoorUnknown: UnknownDoor

    public init(_ mode: DoorMode?, door: String?, ifDoorUnknown: UnknownDoor = .keepWithNote) {
        self.mode = mode
        self.door = door
        self.ifDoorUnknown = ifDoorUnknown
    }
}

/// The site's and doors' modes, changed once for every front end: the names checked, the
/// mode kept with who set it and when, its audit record (`mode_set`, `mode` and `scope`) and
/// change-log entry in one transaction (``AdministratorChanges``).
public struct ModeChanges: Sendable {
    let administration: any VerifierAdministration
    let changes: AdministratorChanges

    public init(administration: any VerifierAdministration, changes: AdministratorChanges) {
        self.administration = administration
        self.changes = changes
    }

    /// Sets `command`'s mode at `instant`: the site's modes now, and the notes on its door.
    public func set(_ command: SetMode, at instant: Date) async throws -> (modes: DoorModes, notes: [ChangeNote]) {
        let (mode, door) = (command.mode, command.door)
        try await DoorScopes.require(changes.administrator, door: door, administration: administration)
        // A door leaving its own mode is checked by the store (it must have one); a door set
        // to a mode may be one the site has not heard of yet.
        let refusing = command.ifDoorUnknown == .refuse
        let unknown =
            mode != nil || refusing ? try await KnownDoors.notes(naming: door.map { [$0] } ?? [], store: changes.store, administration: administration) : []
        if refusing, let door, !unknown.isEmpty {
            throw UserEditError(
                description: "there is no door \(door): none with that terminal_id has reported to this site or has a secret of its own", kind: .notFound)
        }
        let (administration, who) = (self.administration, changes.administrator.name)
        let modes = try await changes.apply(.modeSet, [("mode", mode?.rawValue ?? "site"), ("scope", door ?? "site")]) {
            try await administration.setMode(mode, door: door, by: who, at: instant)
        }
        return (modes, mode == nil ? [] : unknown)
    }
}
