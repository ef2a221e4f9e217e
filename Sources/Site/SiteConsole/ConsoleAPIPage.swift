import Foundation
import Hummingbird
import KioskPadAccess
import KioskPadCore
import SiteCore

/// The API page: management API tokens (made with their scopes and expiry, the token shown
/// once; listed with their last use; revoked) and webhook subscriptions (added, the secret
/// shown once; removed; enabled again once the site disabled it), with each subscription's
/// failed deliveries and "Send again". Every
/// change is made by the same core functions as the command line and the API, and audited
/// with the administrator's name.
extension ConsoleHandler {
    /// Failed deliveries listed per subscription.
    static let failedShown = 20

    func apiPage(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let notices = [
            "revoked": "Token revoked.", "removed": "Webhook removed.", "resent": "The delivery will be sent again.",
            "enabled": "Webhook enabled: what waits in its queue is sent again, oldest first.",
        ]
        return try await renderAPI(context.visit, notice: context.form["done"].flatMap { notices[$0] })
    }

    func renderAPI(_ visit: Visit, notice: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        guard let tokens = services.tokens, let webhooks = services.webhooks else {
            return ConsoleResponse.message("This site has no management API.", title: "API", status: .notFound, visit: visit)
        }
        let zone = try await siteZone()
        let now = services.now()
        let tokenRows: [[String: Any]] = try await tokens.tokens().map { token in
            [
                "name": token.name, "scopes": token.scopes.sorted().map(\.rawValue).joined(separator: ", "), "createdBy": token.createdBy,
                "created": ConsoleTime.local(token.created, zone), "expires": token.expires.map { ConsoleTime.local($0, zone) } ?? "never",
                "lastUsed": token.lastUsed.map { ConsoleTime.local($0, zone) } ?? "never",
                "state": token.revoked != nil ? "revoked" : token.isLive(at: now) ? "live" : "expired", "live": token.isLive(at: now),
            ]
        }
        var hookRows: [[String: Any]] = []
        for hook in try await webhooks.webhooks() {
            let failed = hook.failed == 0 ? [] : try await webhooks.deliveries(subscription: hook.subscription.name, state: .failed, limit: Self.failedShown)
            hookRows.append([
                "name": hook.subscription.name, "url": WebhookTargetPolicy.shown(hook.subscription.url),
                "events": WebhookEventType.text(hook.subscription.events),
                "pending": hook.pending, "failedCount": hook.failed, "dropped": hook.dropped,
                "disabled": hook.subscription.disabled.map { ConsoleTime.local($0, zone) } ?? "",
                "isDisabled": hook.subscription.disabled != nil,
                "failed": failed.map { delivery -> [String: Any] in
                    [
                        "id": String(delivery.id), "hook": hook.subscription.name, "type": delivery.type.rawValue,
                        "created": ConsoleTime.local(delivery.created, zone), "attempts": delivery.attempts, "error": delivery.lastError ?? "",
                    ]
                },
            ])
        }
        let data: [String: Any] = [
            "tokens": tokenRows, "webhooks": hookRows, "scopes": APIScope.allCases.map(\.rawValue),
            "eventTypes": WebhookEventType.allCases.map(\.rawValue),
        ]
        return ConsoleResponse.page("api", title: "API", page: "api", visit: visit, data: data, notice: notice, error: error, status: status)
    }

    func createToken(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let tokens = services.tokens else { return try await renderAPI(visit) }
        let scopes = Set(APIScope.allCases.filter { form["scope_\($0.rawValue)"] == "yes" })
        guard !scopes.isEmpty else { return try await renderAPI(visit, error: "A token needs at least one scope. Nothing was made.", status: .badRequest) }
        var expires: Date?
        if let days = form.text("expires_days") {
            guard let count = Int(days), (1...3_650).contains(count) else {
                return try await renderAPI(visit, error: "Expires after must be 1 to 3650 days, or empty for never. Nothing was made.", status: .badRequest)
            }
            expires = services.now().addingTimeInterval(TimeInterval(count) * 86_400)
        }
        let secret: String
        do {
            secret = try await APITokenAdministration(store: tokens, changes: changes(visit)).create(
                name: form.text("name") ?? "", scopes: scopes, expires: expires, now: services.now())
        } catch let problem as APITokenProblem {
            return try await renderAPI(
                visit, error: "\(problem.description.replacingOccurrences(of: "NAME: ", with: "Name: ")). Nothing was made.", status: .badRequest)
        }
        return ConsoleResponse.page(
            "secret-issued", title: "Token made", page: "api", visit: visit,
            data: ["what": "API token", "name": form.text("name") ?? "", "secret": secret, "use": "Authorization: Bearer TOKEN"])
    }

    func revokeToken(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let tokens = services.tokens else { return try await renderAPI(visit) }
        do {
            try await APITokenAdministration(store: tokens, changes: changes(visit)).revoke(name: form.text("name") ?? "", now: services.now())
        } catch let problem as APITokenProblem {
            return try await renderAPI(visit, error: problem.description.replacingOccurrences(of: "NAME: ", with: ""), status: .notFound)
        }
        return ConsoleResponse.redirect("/console/api?done=revoked")
    }

    func addWebhook(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let webhooks = services.webhooks else { return try await renderAPI(visit) }
        let chosen = Set(WebhookEventType.allCases.filter { form["event_\($0.rawValue)"] == "yes" })
        let name = form.text("name") ?? ""
        let secret: WebhookSecret
        do {
            secret = try await WebhookAdministration(store: webhooks, changes: changes(visit), targets: services.webhookTargets).add(
                name: name, url: form.text("url") ?? "", events: chosen.isEmpty ? Set(WebhookEventType.allCases) : chosen, now: services.now())
        } catch let problem as WebhookProblem {
            let field = ["name": "Name", "url": "URL", "events": "Events", "delivery": "Delivery"][problem.field.rawValue] ?? ""
            return try await renderAPI(
                visit, error: "\(field): \(problem.detail). Nothing was added.", status: problem.kind == .exists ? .conflict : .badRequest)
        }
        return ConsoleResponse.page(
            "secret-issued", title: "Webhook added", page: "api", visit: visit,
            data: ["what": "webhook signing secret", "name": name, "secret": secret.text, "use": "the secret of your Standard Webhooks receiver"])
    }

    func removeWebhook(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let webhooks = services.webhooks else { return try await renderAPI(visit) }
        do {
            try await WebhookAdministration(store: webhooks, changes: changes(visit), targets: services.webhookTargets).remove(name: form.text("name") ?? "")
        } catch let problem as WebhookProblem {
            return try await renderAPI(visit, error: problem.detail, status: .notFound)
        }
        return ConsoleResponse.redirect("/console/api?done=removed")
    }

    /// "Enable" on a webhook the site disabled (its receiver failed for
    /// `server.webhooks.disable_after_hours`): the same core as `webhook enable` and the API.
    func enableWebhook(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let webhooks = services.webhooks else { return try await renderAPI(visit) }
        let name = form.text("name") ?? ""
        do {
            try await WebhookAdministration(store: webhooks, changes: changes(visit), targets: services.webhookTargets).enable(name: name)
        } catch is WebhookProblem {
            return try await renderAPI(visit, error: "Webhook \(name) is not a disabled one (it was enabled already, or removed).", status: .notFound)
        }
        return ConsoleResponse.redirect("/console/api?done=enabled")
    }

    func resendDelivery(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let webhooks = services.webhooks, let id = Int64(form.text("id") ?? "") else {
            return try await renderAPI(visit, error: "That delivery is not a failed one.", status: .notFound)
        }
        do {
            try await WebhookAdministration(store: webhooks, changes: changes(visit), targets: services.webhookTargets).resend(id: id, now: services.now())
        } catch is WebhookProblem {
            return try await renderAPI(visit, error: "Delivery \(id) is not a failed one (it was sent again already, or delivered).", status: .notFound)
        }
        return ConsoleResponse.redirect("/console/api?done=resent")
    }
}
