import Foundation
import Hummingbird
import KioskPadAccess
import SiteCore

/// The Doors page's replica key: the key the site signs replicas and settings with, the next
/// one during a rotation and which adopted doors hold it, with **Rotate replica key** and
/// **Finish rotation**, through ``ReplicaKeyChanges`` (as `verifier replica-key` does).
/// Public keys only.
extension ConsoleHandler {
    /// The section's data; nil (no section) for a console without a replica key.
    func replicaKeyData(_ visit: Visit) async throws -> [String: Any]? {
        guard let replica = services.replica else { return nil }
        let standing = try await ReplicaKeyChanges(administration: services.administration, replica: replica, changes: changes(visit)).standing()
        var data: [String: Any] = ["current": standing.current.description, "rotating": standing.next != nil]
        if let next = standing.next {
            data["next"] = next.description
            data["ready"] = standing.ready.isEmpty ? "none yet" : standing.ready.joined(separator: ", ")
            data["waiting"] = standing.waiting.joined(separator: ", ")
            data["finishable"] = standing.waiting.isEmpty
        }
        return data
    }

    func rotateReplicaKey(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        try await replicaKeyChange(context, done: "replica-rotated") { try await $0.rotate() }
    }

    func finishReplicaKey(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let force = context.form.text("force") == "yes"
        return try await replicaKeyChange(context, done: "replica-finished") { try await $0.finish(force: force) }
    }

    private func replicaKeyChange(
        _ context: AdminRequestContext, done: String, _ change: (ReplicaKeyChanges) async throws -> Void
    ) async throws -> Response {
        let visit = context.visit
        guard let replica = services.replica else {
            return ConsoleResponse.message(
                "This console has no replica key.", title: "Not changed", status: .serviceUnavailable, visit: visit, link: "/console/doors")
        }
        do {
            try await change(ReplicaKeyChanges(administration: services.administration, replica: replica, changes: changes(visit)))
        } catch let error as ReplicaKeyChanges.Refusal {
            return ConsoleResponse.message(error.description, title: "Not changed", status: .conflict, visit: visit, link: "/console/doors")
        }
        return ConsoleResponse.redirect("/console/doors?done=\(done)")
    }
}
