import Foundation
import Hummingbird
import KioskPadAccess
import SiteCore

/// The Doors page's door secrets: each door with a secret of its own, how it came by it
/// (by hand, adopted, rotating, retired), **Rotate secret** for an adopted door and **Retire**
/// for any door the site knows, through ``DoorKeyChanges`` (as `verifier terminal rotate`
/// and `retire` do). Never a secret.
extension ConsoleHandler {
    func doorKeyRows() async throws -> [[String: Any]] {
        let reports = try await services.administration.settingsStates()
        return try await services.administration.doors().map { door in
            [
                "terminal": door.terminalID, "since": door.createdAt, "standing": door.standing.rawValue,
                "rotatable": door.standing == .adopted, "retired": door.standing == .retired,
                "settings": door.standing == .handGiven ? "its own file" : Self.settingsReport(reports[door.terminalID]),
                "refused": reports[door.terminalID]?.refused != nil,
            ]
        }
    }

    func rotateDoorSecret(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        try await doorKeyChange(context, done: "rotated") { keys, door in try await keys.rotate(terminalID: door) }
    }

    func retireDoor(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        try await doorKeyChange(context, done: "retired") { keys, door in try await keys.retire(terminalID: door, now: services.now()) }
    }

    private func doorKeyChange(
        _ context: AdminRequestContext, done: String, _ change: (DoorKeyChanges, String) async throws -> Void
    ) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let door = form.text("door") else {
            return ConsoleResponse.message(
                "door: name the door (its terminal_id).", title: "Not changed", status: .badRequest, visit: visit, link: "/console/doors")
        }
        do {
            try await change(DoorKeyChanges(administration: services.administration, changes: changes(visit)), door)
        } catch let error as UserEditError {
            return ConsoleResponse.message(error.description, title: "Not changed", status: .badRequest, visit: visit, link: "/console/doors")
        }
        return ConsoleResponse.redirect("/console/doors?done=\(done)")
    }
}
