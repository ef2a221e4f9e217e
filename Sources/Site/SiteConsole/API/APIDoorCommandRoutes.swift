import Foundation
import Hummingbird
import KioskPadAccess
import KioskPadStorage
import SiteCore

/// `POST /api/v1/doors/{name}/unlock` (`seconds` 1 to 300, left out for the door's own unlock
/// time; `reason`) and `/lock` (`reason`), scope `doors`: a remote command through
/// ``RemoteDoorCommands``, answered 202 with its number; `GET /api/v1/doors/{name}/commands`:
/// the door's newest commands with when each was delivered and what the door did.
struct APIDoorCommandRoutes: Sendable {
    let changes: APIUserChanges
    var services: ConsoleServices { changes.services }

    func issue(_ action: DoorCommand.Action) -> @Sendable (Request, APIRequestContext) async throws -> Response {
        { request, context in
            let fields: StrictJSON.Fields
            let allowed: Set<String> = action == .unlock ? ["seconds", "reason"] : ["reason"]
            switch try await APIBody.object(request, allowed: allowed) {
            case .failure(let refusal): return refusal.response
            case .success(let object): fields = object
            }
            guard let reason = fields.string("reason") else {
                return APIResponse.error(.badRequest, "reason must be a string: why the door is \(action == .unlock ? "opened" : "locked") from here")
            }
            var seconds: Int?
            if fields.has("seconds") {
                // Its range is the layer's to check (RemoteDoorCommands), as for every front end.
                guard let value = fields.integer("seconds"), let whole = Int(exactly: value) else {
                    return APIResponse.error(
                        .badRequest, "seconds must be a whole number from 1 to \(DoorCommand.maxSeconds), or left out for the door's own unlock time")
                }
                seconds = whole
            }
            let door = context.parameters.get("name") ?? ""
            do {
                let stored = try await services.remoteCommands(changes.changes(context))
                    .issue(RemoteDoorCommand(door: door, action: action, seconds: seconds, reason: reason), at: services.now())
                return APIResponse.json(Self.json(stored), status: .accepted)
            } catch let error as UserEditError {
                let status: HTTPResponse.Status = error.kind == .notFound ? .notFound : error.kind == .conflict ? .conflict : .badRequest
                return APIResponse.error(status, error.description)
            }
        }
    }

    func list(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let door = context.parameters.get("name") ?? ""
        let commands = try await services.administration.recentDoorCommands(terminal: door, limit: 20)
        return APIResponse.json(["door": door, "commands": commands.map(Self.json)])
    }

    static func json(_ command: StoredDoorCommand) -> [String: Any] {
        [
            "command": command.id, "door": command.terminalID, "action": command.action.rawValue,
            "seconds": command.seconds.map { $0 as Any } ?? NSNull(), "reason": command.reason, "admin": command.admin,
            "issued_at": UTCTimestamp.rfc3339(command.issuedAt), "expires_at": UTCTimestamp.rfc3339(command.expiresAt),
            "delivered_at": command.deliveredAt.map { UTCTimestamp.rfc3339($0) as Any } ?? NSNull(),
            "result": command.result.map { $0 as Any } ?? NSNull(),
        ]
    }
}
