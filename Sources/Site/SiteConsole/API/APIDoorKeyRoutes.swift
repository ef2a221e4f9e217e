import Foundation
import Hummingbird
import KioskPadAccess
import KioskPadCore
import SiteCore

/// `POST /api/v1/doors/{name}/rotate` and `/retire` (scope `doors`): an adopted door's secret
/// rotated (picked up at its next check-in) and a door retired, through ``DoorKeyChanges``
/// as the console and the command line do; the answer names the door's standing, never a secret.
struct APIDoorKeyRoutes: Sendable {
    let changes: APIUserChanges
    var services: ConsoleServices { changes.services }

    func rotate(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        try await change(context) { keys, door in try await keys.rotate(terminalID: door) }
    }

    func retire(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        try await change(context) { keys, door in try await keys.retire(terminalID: door, now: services.now()) }
    }

    private func change(_ context: APIRequestContext, _ body: (DoorKeyChanges, String) async throws -> Void) async throws -> Response {
        let door = context.parameters.get("name") ?? ""
        guard Identifier.isValid(door) else { return APIResponse.error(.badRequest, "name must be a terminal_id (1-64 of letters, digits, '.', '_' or '-')") }
        do {
            try await body(DoorKeyChanges(administration: services.administration, changes: changes.changes(context)), door)
        } catch let error as UserEditError {
            return APIResponse.error(error.kind == .notFound ? .notFound : .conflict, error.description)
        }
        let standing = try await services.administration.doors().first { $0.terminalID == door }?.standing
        return APIResponse.json(["door": door, "standing": standing?.rawValue ?? "retired"])
    }
}
