import Foundation
import Hummingbird
import KioskPadAccess
import SiteCore

/// The Doors page's **Open a door from here**: a remote unlock (for the door's own unlock
/// time, or up to 300 s) or lock, with a reason, through ``RemoteDoorCommands`` (as the API's
/// `POST /api/v1/doors/{name}/unlock` does), and the newest commands with when each door
/// took it and what it did.
extension ConsoleHandler {
    /// The newest commands, only for the doors in `within` when given.
    func doorCommandRows(within: Set<String>?) async throws -> [[String: Any]] {
        let zone = try await siteZone()
        return try await services.administration.recentDoorCommands(terminal: nil, limit: 10).filter { within?.contains($0.terminalID) ?? true }.map {
            command in
            [
                "id": command.id, "terminal": command.terminalID, "action": command.action.rawValue,
                "seconds": command.seconds.map(String.init) ?? (command.action == .unlock ? "door's own" : ""), "reason": command.reason,
                "admin": command.admin, "issued": ConsoleTime.local(command.issuedAt, zone),
                "delivered": command.deliveredAt.map { ConsoleTime.local($0, zone) }
                    ?? (command.expiresAt < services.now() ? "not taken (expired)" : "waiting"),
                "result": command.result ?? "",
            ]
        }
    }

    func sendDoorCommand(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        func refuse(_ message: String) -> Response {
            ConsoleResponse.message(message, title: "Not sent", status: .badRequest, visit: visit, link: "/console/doors#commands-heading")
        }
        guard let door = form.text("door") else { return refuse("door: name the door (its terminal_id).") }
        guard let action = form.text("action").flatMap(DoorCommand.Action.init(rawValue:)) else {
            return refuse("action must be unlock or lock.")
        }
        var seconds: Int?
        if action == .unlock, let text = form.text("seconds") {
            // Its range is the layer's to check (RemoteDoorCommands).
            guard let value = Int(text) else {
                return refuse("seconds must be a whole number from 1 to \(DoorCommand.maxSeconds), or empty for the door's own unlock time.")
            }
            seconds = value
        }
        do {
            _ = try await services.remoteCommands(changes(visit))
                .issue(RemoteDoorCommand(door: door, action: action, seconds: seconds, reason: form.text("reason") ?? ""), at: services.now())
        } catch let error as UserEditError {
            return refuse(error.description)
        }
        return ConsoleResponse.redirect("/console/doors?done=\(action == .unlock ? "unlock-sent" : "lock-sent")#commands-heading")
    }
}
