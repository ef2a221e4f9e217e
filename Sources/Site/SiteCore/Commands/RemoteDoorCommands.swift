import Foundation
import KioskPadAccess

/// "Open this door now" (or "lock it now") from the desk: the console's **Unlock** and
/// **Lock**, `POST /api/v1/doors/{id}/unlock` and `/lock`, `kioskpad verifier terminal unlock`.
public struct RemoteDoorCommand: Sendable {
    public let door: String
    public let action: DoorCommand.Action
    /// How long an unlock holds the door (nil: the door's own unlock time, a pulse).
    public let seconds: Int?
    /// Why, in the administrator's words (kept in the audit record and the console).
    public let reason: String

    public init(door: String, action: DoorCommand.Action, seconds: Int? = nil, reason: String) {
        self.door = door
        self.action = action
        self.seconds = seconds
        self.reason = reason
    }
}

/// Remote unlock and lock, made once for every front end: the door checked against those the
/// site knows (not retired, not in lockdown), the duration and reason checked, the command
/// stored with its audit record (`door_unlock`, `door_lock`), its webhook (`door.command`)
/// and change-log entry in one transaction; then the push channel is told at once
/// (``ReplicaVersionWatch/poke()``), so a door holding it gets the command within a round trip.
public struct RemoteDoorCommands: Sendable {
    /// How long a command may wait for its door: one not taken by then is never sent.
    public static let lifetime: TimeInterval = 30
    /// The longest reason kept.
    public static let maxReason = 200

    let administration: any VerifierAdministration
    let changes: AdministratorChanges
    let poke: @Sendable () -> Void

    public init(administration: any VerifierAdministration, changes: AdministratorChanges, poke: @escaping @Sendable () -> Void = {}) {
        self.administration = administration
        self.changes = changes
        self.poke = poke
    }

    /// Issues `command` at `instant`; returns what is stored (its number, until when it waits).
    public func issue(_ command: RemoteDoorCommand, at instant: Date) async throws -> StoredDoorCommand {
        let reason = command.reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty, reason.count <= Self.maxReason, !reason.contains(where: { $0.isNewline }) else {
            throw UserEditError(description: "reason: say why, in 1 to \(Self.maxReason) characters on one line (it is kept in the audit log)")
        }
        if let seconds = command.seconds, !(1...DoorCommand.maxSeconds).contains(seconds) {
            throw UserEditError(
                description: "seconds must be a whole number from 1 to \(DoorCommand.maxSeconds) (leave it out for the door's own unlock time)")
        }
        if command.action == .lock, command.seconds != nil {
            throw UserEditError(description: "seconds: a lock has no duration (it ends an unlock now)")
        }
        try await DoorScopes.require(changes.administrator, door: command.door, administration: administration)
        try await checkDoor(command.door, action: command.action)
        let (administration, who) = (self.administration, changes.administrator.name)
        let expires = instant.addingTimeInterval(Self.lifetime)
        let action: AdministratorAction = command.action == .unlock ? .doorUnlock : .doorLock
        let id = try await changes.apply(action) {
            let id = try await administration.addDoorCommand(
                terminal: command.door, action: command.action, seconds: command.seconds, reason: reason, admin: who, issuedAt: instant,
                expiresAt: expires)
            var fields = [("terminal_id", command.door), ("command", String(id))]
            if let seconds = command.seconds { fields.append(("seconds", String(seconds))) }
            fields.append(("reason", reason))
            return (id, fields)
        }
        poke()
        return StoredDoorCommand(
            id: id, terminalID: command.door, action: command.action, seconds: command.seconds, reason: reason, admin: who, issuedAt: instant,
            expiresAt: expires)
    }

    /// A door the site knows, not retired; an unlock not against a lockdown the site set.
    private func checkDoor(_ door: String, action: DoorCommand.Action) async throws {
        guard try await KnownDoors.unknown([door], store: changes.store, administration: administration).isEmpty else {
            throw UserEditError(
                description:
                    "door '\(door)' is not a door of this site (none has that secret of its own or sent records; see `kioskpad verifier terminal list`)",
                kind: .notFound)
        }
        if try await changes.store.retiredDoors().contains(door) {
            throw UserEditError(description: "door '\(door)' is retired: it takes no command", kind: .conflict)
        }
        guard action == .unlock else { return }
        if try await administration.siteRules().modes.mode(at: door) == .lockdown {
            throw UserEditError(
                description: "door '\(door)' is in lockdown: a remote unlock is refused while it lasts (lockdown wins; end it first)", kind: .conflict)
        }
    }
}
