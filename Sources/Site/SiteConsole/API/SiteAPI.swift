import Foundation
import Hummingbird
import KioskPadStorage
import SiteCore

/// The management API (`/api/v1/`, docs/api.md, docs/api-openapi.yaml) on the console's
/// listener, with its connection limits and security headers: every route behind
/// ``APITokenMiddleware``; a route that changes something names the scope it needs.
enum SiteAPI {
    static func add(
        to router: Router<ConsoleRequestContext>, services: ConsoleServices, tokens: any APITokenStore, limits: APIRateLimits, silentAfter: TimeInterval
    ) {
        router.add(middleware: APIMethodNotAllowed())
        let api = router.group("/api/v1").add(middleware: APITokenMiddleware(tokens: tokens, limits: limits, now: services.now))
            .group(context: APIRequestContext.self).add(middleware: APIIdempotency(tokens: tokens, now: services.now))
        api.get("token") { _, context in
            APIResponse.json([
                "name": context.token.name, "scopes": context.token.scopes.sorted().map(\.rawValue),
                "expires": context.token.expires.map { UTCTimestamp.rfc3339($0) as Any } ?? NSNull(),
            ])
        }
        let users = APIUsersRoutes(services: services)
        api.get("users", use: users.list)
        api.get("users/:name", use: users.read)
        let changes = APIUserChanges(services: services)
        api.post("users/:name/disable", use: changes.setState(disabled: true))
        api.post("users/:name/enable", use: changes.setState(disabled: false))
        api.delete("users/:name", use: changes.remove)
        api.post("users", use: APIUserCreation(changes: changes).create)
        let updates = APIUserUpdates(changes: changes)
        api.patch("users/:name", use: updates.update)
        api.post("users/:name/cards", use: updates.card(add: true))
        api.post("users/:name/cards/remove", use: updates.card(add: false))
        api.post("users/:name/codes", use: updates.issueCode)
        api.post("users/:name/enrolment-code", use: updates.issueEnrolmentCode)
        api.get("codes", use: updates.listCodes)
        api.delete("codes/:id", use: updates.revokeCode)
        let visitors = APIVisitorPassRoutes(changes: changes)
        api.get("visitor-passes", use: visitors.list)
        api.post("visitor-passes", use: visitors.issue)
        api.get("visitor-passes/:id", use: visitors.read)
        api.delete("visitor-passes/:id", use: visitors.revoke)
        let doors = APIDoorRoutes(board: DoorStatusBoard(services: services, silentAfter: silentAfter), changes: changes)
        api.get("doors", use: doors.list)
        api.post("doors/:name/alerts/:alert/acknowledge", use: doors.acknowledge)
        let keys = APIDoorKeyRoutes(changes: changes)
        api.post("doors/:name/rotate", use: keys.rotate)
        api.post("doors/:name/retire", use: keys.retire)
        let commands = APIDoorCommandRoutes(changes: changes)
        api.post("doors/:name/unlock", use: commands.issue(.unlock))
        api.post("doors/:name/lock", use: commands.issue(.lock))
        api.get("doors/:name/commands", use: commands.list)
        let settings = APISettingsRoutes(changes: changes)
        api.get("settings", use: settings.read)
        api.patch("settings", use: settings.change)
        let replicaKey = APIReplicaKeyRoutes(changes: changes)
        api.get("replica-key", use: replicaKey.read)
        api.post("replica-key/rotate", use: replicaKey.rotate)
        api.post("replica-key/finish", use: replicaKey.finish)
        api.get("modes", use: doors.modes)
        api.put("modes/site", use: doors.setMode(door: false))
        api.put("modes/doors/:name", use: doors.setMode(door: true))
        let calendar = APICalendarRoutes(changes: changes)
        api.get("holidays", use: calendar.holidays)
        api.put("holidays/:date", use: calendar.setHoliday)
        api.delete("holidays/:date", use: calendar.removeHoliday)
        api.get("schedules", use: calendar.schedules)
        api.put("schedules/:name", use: calendar.setSchedule)
        api.delete("schedules/:name", use: calendar.removeSchedule)
        let tree = APIAccessLevelRoutes(changes: changes)
        for (path, kind) in [("door-groups", AccessGroupKind.doorGroup), ("access-levels", .level), ("groups", .userGroup)] {
            api.get(RouterPath(path), use: tree.list(kind))
            api.put(RouterPath(path + "/:name"), use: tree.set(kind))
            api.delete(RouterPath(path + "/:name"), use: tree.remove(kind))
        }
        api.get("doors/:name/access", use: tree.door)
        api.get("users/:name/access", use: tree.user)
        if let feed = services.console as? any AuditFeed {
            api.get("audit", use: APIAuditRoutes(feed: feed, now: services.now).read)
        }
        if let store = services.webhooks {
            let webhooks = APIWebhookRoutes(store: store, changes: changes, targets: services.webhookTargets)
            api.get("webhooks", use: webhooks.list)
            api.post("webhooks", use: webhooks.add)
            api.delete("webhooks/:name", use: webhooks.remove)
            api.get("webhooks/:name/deliveries", use: webhooks.deliveries)
            api.post("webhooks/:name/deliveries/:id/resend", use: webhooks.resend)
            api.post("webhooks/:name/enable", use: webhooks.enable)
        }
    }
}
