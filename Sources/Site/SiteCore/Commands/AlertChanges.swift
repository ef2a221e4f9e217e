import Foundation
import KioskPadAccess

/// A door's standing alert acknowledged, as the console and the API do it: the alert's name
/// checked against those a door view raises, the acknowledgement kept under the
/// administrator's name (it stands until the door raises the alert again), with its audit
/// record (`alert_acknowledge`) and change-log entry in one transaction.
public struct AlertChanges: Sendable {
    let console: any ConsoleStore
    let administration: any VerifierAdministration
    let changes: AdministratorChanges

    public init(console: any ConsoleStore, administration: any VerifierAdministration, changes: AdministratorChanges) {
        self.console = console
        self.administration = administration
        self.changes = changes
    }

    /// Acknowledges `alert` of `door` at `instant`.
    public func acknowledge(door: String, alert: String, at instant: Date) async throws {
        guard DoorView.alertNames.contains(alert) else {
            throw UserEditError(description: "alert must be one of \(DoorView.alertNames.joined(separator: ", "))")
        }
        try await DoorScopes.require(changes.administrator, door: door, administration: administration)
        let (console, who) = (self.console, changes.administrator.name)
        try await changes.apply(.alertAcknowledge, [("terminal_id", door), ("alert", alert)]) {
            try await console.acknowledge(terminal: door, alert: alert, admin: who, at: instant)
        }
    }
}
