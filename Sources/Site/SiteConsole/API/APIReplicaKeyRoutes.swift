import Foundation
import Hummingbird
import KioskPadAccess
import SiteCore

/// `/api/v1/replica-key`: the key the site signs replicas and settings with, read (scope
/// `read`) and rotated (scope `doors`: `POST .../rotate`, then `POST .../finish` with an
/// optional `{"force": true}`) through ``ReplicaKeyChanges``, as the console and `verifier
/// replica-key` do. Public keys only.
struct APIReplicaKeyRoutes: Sendable {
    let changes: APIUserChanges
    var services: ConsoleServices { changes.services }

    func read(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        guard let keys = try keyChanges(context) else { return Self.noKey }
        return APIResponse.json(Self.json(try await keys.standing()))
    }

    func rotate(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        if case .failure(let refusal) = try await APIBody.optionalObject(request, allowed: []) { return refusal.response }
        guard let keys = try keyChanges(context) else { return Self.noKey }
        do {
            try await keys.rotate()
        } catch let error as ReplicaKeyChanges.Refusal {
            return APIResponse.error(.conflict, error.description)
        }
        return APIResponse.json(Self.json(try await keys.standing()))
    }

    func finish(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        var force = false
        switch try await APIBody.optionalObject(request, allowed: ["force"]) {
        case .failure(let refusal): return refusal.response
        case .success(let fields?):
            if fields.has("force") {
                guard case .bool(let flag)? = fields.object["force"] else { return APIResponse.error(.badRequest, "force must be true or false") }
                force = flag
            }
        case .success(nil): break
        }
        guard let keys = try keyChanges(context) else { return Self.noKey }
        do {
            try await keys.finish(force: force)
        } catch let error as ReplicaKeyChanges.Refusal {
            return APIResponse.error(.conflict, error.description)
        }
        return APIResponse.json(Self.json(try await keys.standing()))
    }

    private func keyChanges(_ context: APIRequestContext) throws -> ReplicaKeyChanges? {
        guard let replica = services.replica else { return nil }
        return ReplicaKeyChanges(administration: services.administration, replica: replica, changes: changes.changes(context))
    }

    static var noKey: Response { APIResponse.error(.serviceUnavailable, "this site has no replica key") }

    static func json(_ standing: ReplicaKeyChanges.Standing) -> [String: Any] {
        [
            "current": standing.current.description, "next": standing.next?.description ?? NSNull(), "ready": standing.ready,
            "waiting": standing.waiting,
        ]
    }
}
