import Foundation
import KioskPadAccess
import KioskPadCore

/// A door's secret given, revoked, rotated (an adopted door) and the door retired, and its
/// lockout cleared: the one core the command line, the console and the API go through, each
/// change one audit record (`door_add`, `door_remove`, `door_rotate`, `door_retire`,
/// `lockout_clear`: the door's name, never a secret).
///
/// A rotation leaves no window in which the door is refused: the site accepts the next secret
/// beside the current one, the door picks it up at its next check-in (sealed under its
/// current secret, ``SecretRotationSeal``), and its first request signed with the next secret
/// ends the current one. A retired door is refused at once, whatever it signs with.
public struct DoorKeyChanges: Sendable {
    let administration: any VerifierAdministration
    let changes: AdministratorChanges

    public init(administration: any VerifierAdministration, changes: AdministratorChanges) {
        self.administration = administration
        self.changes = changes
    }

    /// Gives door `terminalID` a secret of its own (made here, returned once; `terminal add`).
    public func add(terminalID: String) async throws -> WebhookSecret {
        let (administration, secret) = (self.administration, WebhookSecret.generate())
        try await changes.apply(.doorAdd, [("terminal_id", terminalID)]) { try await administration.addDoor(terminalID: terminalID, secret: secret) }
        return secret
    }

    /// Revokes the secret of its own of door `terminalID`; refused when it has none.
    public func remove(terminalID: String) async throws {
        let administration = self.administration
        try await changes.apply(.doorRemove, [("terminal_id", terminalID)]) {
            guard try await administration.removeDoor(terminalID: terminalID) else {
                throw UserEditError(description: "door '\(terminalID)' has no secret of its own (see `kioskpad verifier terminal list`)")
            }
        }
    }

    /// Clears door `terminalID`'s lockout state at the site; refused when it has none.
    public func clearLockout(terminalID: String) async throws {
        let administration = self.administration
        try await changes.apply(.lockoutClear, [("terminal_id", terminalID)]) {
            guard try await administration.clearLockout(terminal: terminalID) else {
                throw UserEditError(description: "--door '\(terminalID)' has no lockout state (see `kioskpad verifier lockout list`)")
            }
        }
    }

    /// Starts rotating adopted door `terminalID`'s secret; refused, naming why, for a door
    /// given its secret by hand, a retired door or one whose rotation still waits.
    public func rotate(terminalID: String) async throws {
        try await changes.apply(.doorRotate, [("terminal_id", terminalID)]) {
            try await administration.startRotation(
                terminalID: terminalID, next: WebhookSecret.generate(), deadline: changes.now().addingTimeInterval(DoorKey.rotationWindow))
        }
    }

    /// Retires door `terminalID`, one the site knows (it has a secret or sent records);
    /// refused for a name the site has never heard of, so a typo retires nothing.
    public func retire(terminalID: String, now: Date = Date()) async throws {
        guard try await KnownDoors.unknown([terminalID], store: changes.store, administration: administration).isEmpty else {
            throw UserEditError(
                description:
                    "door '\(terminalID)' is not a door of this site (none has that secret of its own or sent records; see `kioskpad verifier terminal list` and `terminal status`)",
                kind: .notFound)
        }
        try await changes.apply(.doorRetire, [("terminal_id", terminalID)]) {
            try await administration.retireDoor(terminalID: terminalID, now: now)
        }
    }
}
