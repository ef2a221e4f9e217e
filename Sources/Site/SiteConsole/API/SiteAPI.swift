import Foundation
import Hummingbird
import KioskPadStorage
import SiteCore

/// The management API (`/api/v1/`, docs/api.md, docs/api-openapi.yaml) on the console's
/// listener, with its connection limits and security headers: every route behind
/// ``APITokenMiddleware``, each naming the permission it needs (``APIRoutePermissions``).
enum SiteAPI {
    static func add(
        to router: Router<ConsoleRequestContext>, services: ConsoleServices, tokens: any APITokenStore, limits: APIRateLimits, silentAfter: TimeInterval
    ) {
        router.add(middleware: APIMethodNotAllowed())
        let api = router.group("/api/v1").add(middleware: APITokenMiddleware(tokens: tokens, limits: limits, now: services.now))
            .group(context: APIRequestContext.self).add(middleware: APIIdempotency(tokens: tokens, now: services.now))
        // Any live token may read itself.
        api.get("token") { _, context in
            APIResponse.json([
                "name": context.token.name, "scopes": context.token.scopes.sorted().map(\.rawValue), "role": context.token.role.name,
                "permissions": context.token.permissions.sorted().map(\.rawValue),
                "expires": context.token.expires.map { UTCTimestamp.rfc3339($0) as Any } ?? NSNull(),
            ])
        }
        let users = APIUsersRoutes(services: services)
        api.on("users", .get, needs: .viewUsers, use: users.list)
        api.on("users/:name", .get, needs: .viewUsers, use: users.read)
        let changes = APIUserChanges(services: services)
        api.on("users/:name/disable", .post, needs: .changeUsers, use: changes.setState(disabled: true))
        api.on("users/:name/enable", .post, needs: .changeUsers, use: changes.setState(disabled: false))
        api.on("users/:name", .delete, needs: .changeUsers, use: changes.remove)
        api.on("users", .post, needs: .changeUsers, use: APIUserCreation(changes: changes).create)
        let updates = APIUserUpdates(changes: changes)
        api.on("users/:name", .patch, needs: .changeUsers, use: updates.update)
        api.on("users/:name/cards", .post, needs: .changeUsers, use: updates.card(add: true))
        api.on("users/:name/cards/remove", .post, needs: .changeUsers, use: updates.card(add: false))
        api.on("users/:name/codes", .post, needs: .issueCodes, use: updates.issueCode)
        api.on("users/:name/enrolment-code", .post, needs: .issueCodes, use: updates.issueEnrolmentCode)
        api.on("codes", .get, needs: .viewCodes, use: updates.listCodes)
        api.on("codes/:id", .delete, needs: .issueCodes, use: updates.revokeCode)
        let visitors = APIVisitorPassRoutes(changes: changes)
        api.on("visitor-passes", .get, needs: .viewVisitors, use: visitors.list)
        api.on("visitor-passes", .post, needs: .issueVisitorPasses, or: .hostVisitorPasses, use: visitors.issue)
        api.on("visitor-passes/:id", .get, needs: .viewVisitors, use: visitors.read)
        api.on("visitor-passes/:id", .delete, needs: .issueVisitorPasses, or: .hostVisitorPasses, use: visitors.revoke)
        let doors = APIDoorRoutes(board: DoorStatusBoard(services: services, silentAfter: silentAfter), changes: changes)
        api.on("doors", .get, needs: .viewDoors, use: doors.list)
        api.on("doors/:name/alerts/:alert/acknowledge", .post, needs: .acknowledgeAlerts, use: doors.acknowledge)
        let keys = APIDoorKeyRoutes(changes: changes)
        api.on("doors/:name/rotate", .post, needs: .manageDoors, use: keys.rotate)
        api.on("doors/:name/retire", .post, needs: .manageDoors, use: keys.retire)
        let commands = APIDoorCommandRoutes(changes: changes)
        api.on("doors/:name/unlock", .post, needs: .commandDoors, use: commands.issue(.unlock))
        api.on("doors/:name/lock", .post, needs: .commandDoors, use: commands.issue(.lock))
        api.on("doors/:name/commands", .get, needs: .viewDoors, use: commands.list)
        let settings = APISettingsRoutes(changes: changes)
        api.on("settings", .get, needs: .viewSite, use: settings.read)
        api.on("settings", .patch, needs: .manageDoors, use: settings.change)
        let replicaKey = APIReplicaKeyRoutes(changes: changes)
        api.on("replica-key", .get, needs: .viewSite, use: replicaKey.read)
        api.on("replica-key/rotate", .post, needs: .manageDoors, use: replicaKey.rotate)
        api.on("replica-key/finish", .post, needs: .manageDoors, use: replicaKey.finish)
        api.on("modes", .get, needs: .viewDoors, use: doors.modes)
        api.on("modes/site", .put, needs: .setModes, use: doors.setMode(door: false))
        api.on("modes/doors/:name", .put, needs: .setModes, use: doors.setMode(door: true))
        let calendar = APICalendarRoutes(changes: changes)
        api.on("holidays", .get, needs: .viewSite, use: calendar.holidays)
        api.on("holidays/:date", .put, needs: .changeSite, use: calendar.setHoliday)
        api.on("holidays/:date", .delete, needs: .changeSite, use: calendar.removeHoliday)
        api.on("schedules", .get, needs: .viewSite, use: calendar.schedules)
        api.on("schedules/:name", .put, needs: .changeSite, use: calendar.setSchedule)
        api.on("schedules/:name", .delete, needs: .changeSite, use: calendar.removeSchedule)
        let tree = APIAccessLevelRoutes(changes: changes)
        for (path, kind) in [("door-groups", AccessGroupKind.doorGroup), ("access-levels", .level), ("groups", .userGroup)] {
            api.on(RouterPath(path), .get, needs: .viewSite, use: tree.list(kind))
            api.on(RouterPath(path + "/:name"), .put, needs: .changeSite, use: tree.set(kind))
            api.on(RouterPath(path + "/:name"), .delete, needs: .changeSite, use: tree.remove(kind))
        }
        api.on("doors/:name/access", .get, needs: .viewSite, use: tree.door)
        api.on("users/:name/access", .get, needs: .viewUsers, use: tree.user)
        if let feed = services.console as? any AuditFeed {
            api.on("audit", .get, needs: .viewEntries, use: APIAuditRoutes(feed: feed, now: services.now).read)
        }
        if let store = services.webhooks {
            let webhooks = APIWebhookRoutes(store: store, changes: changes, targets: services.webhookTargets)
            api.on("webhooks", .get, needs: .viewIntegrations, use: webhooks.list)
            api.on("webhooks", .post, needs: .manageWebhooks, use: webhooks.add)
            api.on("webhooks/:name", .delete, needs: .manageWebhooks, use: webhooks.remove)
            api.on("webhooks/:name/deliveries", .get, needs: .viewIntegrations, use: webhooks.deliveries)
            api.on("webhooks/:name/deliveries/:id/resend", .post, needs: .manageWebhooks, use: webhooks.resend)
            api.on("webhooks/:name/enable", .post, needs: .manageWebhooks, use: webhooks.enable)
        }
    }
}
