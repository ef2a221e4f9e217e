import Foundation
import HTTPTypes
import HummingbirdTesting
import KioskPadAccess
import NIOCore
import SiteCore
import Testing
import VerifierTestSupport

/// The census of who may use what: every console and API route the router holds, asked by
/// an administrator (or a token with every scope) of every role, against the table below,
/// written out by hand and not read from the code's. A route added without its row fails
/// here; so does a role that gets an answer its row does not give it.
@Suite("Roles: every console and API route by every role", .serialized)
struct RoleCensusTests {
    /// Who gets past a route's permission check; everyone else gets 403 naming the permission.
    static let everyone = "owner administrator user-manager host guard auditor"
    static let readers = "owner administrator user-manager guard auditor"
    static let peopleReaders = "owner administrator user-manager auditor"
    static let people = "owner administrator user-manager"
    static let desk = "owner administrator guard"
    static let admins = "owner administrator"
    static let hosts = "owner administrator user-manager host"
    static let auditors = "owner administrator auditor"
    static let watchers = "owner administrator guard auditor"

    static let console: [String: String] = [
        "GET /console/doors": readers, "GET /console/doors.json": readers, "POST /console/doors/ack": desk,
        "POST /console/doors/adopt": admins, "POST /console/doors/rotate": admins, "POST /console/doors/retire": admins,
        "POST /console/doors/command": desk, "POST /console/doors/settings": admins, "POST /console/doors/replica-key/rotate": admins,
        "POST /console/doors/replica-key/finish": admins,
        "GET /console/users": peopleReaders, "POST /console/users": people, "POST /console/users/state": people, "POST /console/users/remove": people,
        "POST /console/users/totp": people, "POST /console/users/cards": people, "GET /console/users/edit": peopleReaders,
        "POST /console/users/rule": people, "POST /console/users/enrol-code": people, "POST /console/users/learn-card": people,
        "POST /console/users/claim-card": people,
        "GET /console/codes": peopleReaders, "POST /console/codes": people, "POST /console/codes/revoke": people,
        "GET /console/visitors": everyone.replacingOccurrences(of: " guard", with: ""), "POST /console/visitors": hosts,
        "POST /console/visitors/revoke": hosts,
        "GET /console/site": readers, "POST /console/site/mode": desk, "POST /console/site/unlock": admins, "POST /console/site/card-pin": admins,
        "POST /console/site/holidays": admins, "POST /console/site/holidays/remove": admins,
        "GET /console/access": readers, "POST /console/access/door-groups": admins, "POST /console/access/door-groups/remove": admins,
        "POST /console/access/levels": admins, "POST /console/access/levels/remove": admins, "POST /console/access/groups": admins,
        "POST /console/access/groups/remove": admins,
        "GET /console/api": auditors, "POST /console/api/tokens": admins, "POST /console/api/tokens/revoke": admins,
        "POST /console/api/webhooks": admins, "POST /console/api/webhooks/remove": admins, "POST /console/api/webhooks/resend": admins,
        "POST /console/api/webhooks/enable": admins,
        "GET /console/entries": watchers, "GET /console/entries.json": watchers, "GET /console/entries.csv": auditors,
    ]

    static let api: [String: String] = [
        "GET /api/v1/token": everyone,
        "GET /api/v1/users": peopleReaders, "GET /api/v1/users/{name}": peopleReaders, "POST /api/v1/users/{name}/disable": people,
        "POST /api/v1/users/{name}/enable": people, "DELETE /api/v1/users/{name}": people, "POST /api/v1/users": people,
        "PATCH /api/v1/users/{name}": people, "POST /api/v1/users/{name}/cards": people, "POST /api/v1/users/{name}/cards/remove": people,
        "POST /api/v1/users/{name}/codes": people, "POST /api/v1/users/{name}/enrolment-code": people,
        "GET /api/v1/codes": peopleReaders, "DELETE /api/v1/codes/{id}": people,
        "GET /api/v1/visitor-passes": peopleReaders, "POST /api/v1/visitor-passes": hosts, "GET /api/v1/visitor-passes/{id}": peopleReaders,
        "DELETE /api/v1/visitor-passes/{id}": hosts,
        "GET /api/v1/doors": readers, "POST /api/v1/doors/{name}/alerts/{alert}/acknowledge": desk, "POST /api/v1/doors/{name}/rotate": admins,
        "POST /api/v1/doors/{name}/retire": admins, "POST /api/v1/doors/{name}/unlock": desk, "POST /api/v1/doors/{name}/lock": desk,
        "GET /api/v1/doors/{name}/commands": readers,
        "GET /api/v1/settings": readers, "PATCH /api/v1/settings": admins, "GET /api/v1/replica-key": readers,
        "POST /api/v1/replica-key/rotate": admins, "POST /api/v1/replica-key/finish": admins,
        "GET /api/v1/modes": readers, "PUT /api/v1/modes/site": desk, "PUT /api/v1/modes/doors/{name}": desk,
        "GET /api/v1/holidays": readers, "PUT /api/v1/holidays/{date}": admins, "DELETE /api/v1/holidays/{date}": admins,
        "GET /api/v1/schedules": readers, "PUT /api/v1/schedules/{name}": admins, "DELETE /api/v1/schedules/{name}": admins,
        "GET /api/v1/door-groups": readers, "PUT /api/v1/door-groups/{name}": admins, "DELETE /api/v1/door-groups/{name}": admins,
        "GET /api/v1/access-levels": readers, "PUT /api/v1/access-levels/{name}": admins, "DELETE /api/v1/access-levels/{name}": admins,
        "GET /api/v1/groups": readers, "PUT /api/v1/groups/{name}": admins, "DELETE /api/v1/groups/{name}": admins,
        "GET /api/v1/doors/{name}/access": readers, "GET /api/v1/users/{name}/access": peopleReaders,
        "GET /api/v1/audit": watchers,
        "GET /api/v1/webhooks": auditors, "POST /api/v1/webhooks": admins, "DELETE /api/v1/webhooks/{name}": admins,
        "GET /api/v1/webhooks/{name}/deliveries": auditors, "POST /api/v1/webhooks/{name}/deliveries/{id}/resend": admins,
        "POST /api/v1/webhooks/{name}/enable": admins,
    ]

    /// The routes a session or token is not asked for (the login, the static files) and signing out.
    static let open: Set<String> = [
        "GET /console", "GET /console/login", "POST /console/login", "GET /console/login/provider", "GET /console/login/callback",
        "GET /console/static/console.css", "GET /console/static/console.js",
        "POST /console/logout",
    ]

    /// Every route has a row in `table`, and every row is a route there is.
    static func expectOneRowEach(_ routes: [String], _ table: [String: String], sourceLocation: SourceLocation = #_sourceLocation) {
        let missing = routes.filter { table[$0] == nil }
        #expect(missing.isEmpty, "routes without a row in the census: \(missing)", sourceLocation: sourceLocation)
        let stale = Set(table.keys).subtracting(routes)
        #expect(stale.isEmpty, "rows for routes there are not: \(stale)", sourceLocation: sourceLocation)
    }

    static func filled(_ path: String) -> String {
        path.replacingOccurrences(of: #"\{[a-z]+\}"#, with: "ana", options: .regularExpression)
    }

    @Test("Every console route answers each role as its row says: let in, or 403 naming the permission")
    func everyConsoleRouteByEveryRole() async throws {
        try await ConsoleHarness.withConsole(.sqlite) { harness, client in
            let routes = harness.routes.filter { !$0.contains(" /api/") && !Self.open.contains($0) }
            Self.expectOneRowEach(routes, Self.console)
            try await Self.seed(harness)
            var ownersForms: Set<String> = []
            for role in SiteRole.allCases {
                let browser = try await Self.signedIn(role, harness, client)
                let csrf = try await browser.csrf()
                for route in routes.sorted() {
                    guard let row = Self.console[route] else { continue }
                    let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                    let answer = parts[0] == "GET" ? try await browser.get(parts[1]) : try await browser.post(parts[1], [("csrf", csrf)])
                    let body = String(buffer: answer.body)
                    let refused = answer.status == .forbidden && body.contains("may not do this")
                    let expected = row.split(separator: " ").contains(Substring(role.name))
                    #expect(refused != expected, "\(role.name) \(route): \(answer.status) \(body.prefix(160))")
                    if refused { #expect(body.contains("it needs "), "\(route): the refusal names the permission") }
                    // A page shows only the forms its reader may send.
                    if parts[0] == "GET", !refused, answer.headers[.contentType]?.hasPrefix("text/html") == true {
                        for form in body.matches(of: /<form method="post" action="(\/console\/[^"?]+)"/) where form.1 != "/console/logout" {
                            if role == .owner { ownersForms.insert(String(form.1)) }
                            let row = Self.console["POST " + form.1] ?? ""
                            #expect(row.split(separator: " ").contains(Substring(role.name)), "\(role.name) \(route) shows a form for POST \(form.1)")
                        }
                    }
                }
            }
            // And the owner is shown every form the seeded pages have (the flags reach the templates).
            let expected: Set<String> = [
                "/console/users/state", "/console/users/remove", "/console/users", "/console/doors/command", "/console/doors/retire",
                "/console/site/holidays/remove", "/console/access/groups/remove", "/console/codes", "/console/visitors", "/console/api/tokens",
            ]
            #expect(expected.isSubset(of: ownersForms), "missing: \(expected.subtracting(ownersForms))")
        }
    }

    @Test("Every API route answers a token of each role, with every scope, as its row says")
    func everyAPIRouteByEveryRole() async throws {
        try await ConsoleHarness.withConsole(.sqlite) { harness, client in
            let routes = harness.routes.filter { $0.contains(" /api/") }
            Self.expectOneRowEach(routes, Self.api)
            let owner = AdministratorChanges(store: harness.under.store, by: .commandLine(["USER": "test"]), now: { harness.clock.now })
            let tokens = APITokenAdministration(store: harness.under.tokens, changes: owner)
            for role in SiteRole.allCases {
                let secret = try await tokens.create(
                    name: "census-\(role.name)", scopes: Set(APIScope.allCases), role: role, expires: nil, now: harness.clock.now)
                for route in routes.sorted() {
                    guard let row = Self.api[route] else { continue }
                    let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                    var headers: HTTPFields = [.authorization: "Bearer \(secret)"]
                    headers[.contentType] = "application/json"
                    let answer = try await client.execute(
                        uri: Self.filled(parts[1]), method: HTTPRequest.Method(parts[0]) ?? .get, headers: headers,
                        body: parts[0] == "GET" ? nil : ByteBuffer(string: "{}"))
                    let object = (try? JSONSerialization.jsonObject(with: Data(buffer: answer.body)) as? [String: Any]) ?? [:]
                    let refused = answer.status == .forbidden && object["permission"] != nil
                    let expected = row.split(separator: " ").contains(Substring(role.name))
                    #expect(refused != expected, "\(role.name) \(route): \(answer.status) \(String(buffer: answer.body).prefix(160))")
                }
            }
        }
    }

    /// Something on every page, so that each shows its rows' forms: a user, a door with its own
    /// secret, a holiday, a door group, a level and a user group, a one-time code.
    static func seed(_ harness: ConsoleHarness) async throws {
        try await ManagementAPITests().addUsers(harness, ["ana"])
        let site = harness.under.administration
        try await site.addDoor(terminalID: "front-door", secret: WebhookSecret.generate())
        try await site.setHoliday(try Holiday(day: SiteDate(parsing: "2027-01-01")!, label: "New Year"))
        try await site.setDoorGroup(name: "ground", DoorGroup(doors: ["front-door"]))
        try await site.setLevel(name: "staff", AccessLevel(doorGroups: ["ground"]))
        try await site.setUserGroup(name: "team", UserGroup(levels: ["staff"]))
    }

    /// Administrator `r-ROLE` of `role`, signed in.
    static func signedIn(_ role: SiteRole, _ harness: ConsoleHarness, _ client: any TestClientProtocol) async throws -> Browser {
        let name = "r-" + role.name
        #expect(
            try await harness.under.console.addAdmin(
                name: name, hash: try PINHash.make(password: Array(ConsoleHarness.password.utf8), iterations: 1_000), role: role, doorGroups: nil))
        let browser = Browser(client)
        let login = try await browser.logIn(name)
        #expect(login.status == .seeOther, "\(role.name) signs in")
        return browser
    }
}
