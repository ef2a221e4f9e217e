import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import Mustache
import NIOCore
import SiteCore

/// The site console in the browser, at `/console/` of its own listener
/// (`server.console.listen`): login, Doors (live), Users, Codes and Who entered. Every page
/// needs an administrator's session; every change needs the session's form token (CSRF)
/// and is audited with the administrator's name. Build the router here and serve it with
/// Hummingbird.
public enum SiteConsole {
    public static func router(services: ConsoleServices, options: ConsoleOptions, logger: Logger) -> Router<ConsoleRequestContext> {
        let console = ConsoleHandler(services: services, options: options, logger: logger)
        let router = Router(context: ConsoleRequestContext.self)
        router.add(middleware: ConsoleErrorPages())
        router.get("/console") { _, _ in ConsoleResponse.redirect("/console/doors") }
        router.get("/console/static/console.css") { _, _ in ConsoleResponse.text(ConsoleAssets.css, type: "text/css; charset=utf-8") }
        router.get("/console/static/console.js") { _, _ in ConsoleResponse.text(ConsoleAssets.javascript, type: "text/javascript; charset=utf-8") }
        router.get("/console/login") { request, context in await console.loginPage(request, context) }
        router.post("/console/login") { request, context in await console.login(request, context) }
        // Through the identity provider (server.console.openid): off, these answer 404.
        router.get("/console/login/provider") { request, context in await console.sendToProvider(request, context) }
        router.get("/console/login/callback") { request, context in await console.providerCallback(request, context) }
        // Everything else needs an administrator's session (and a POST its form token), and
        // each route the permission it names (ConsolePermissions); signing out, none.
        let pages = router.group("/console").add(middleware: ConsoleSessionMiddleware(console: console, json: false))
            .group(context: AdminRequestContext.self)
        let data = router.group("/console").add(middleware: ConsoleSessionMiddleware(console: console, json: true))
            .group(context: AdminRequestContext.self)
        pages.post("logout", use: console.logout)
        pages.get("doors", needs: .viewDoors, use: console.doorsPage)
        data.get("doors.json", needs: .viewDoors, use: console.doorsJSON)
        pages.post("doors/ack", needs: .acknowledgeAlerts, use: console.acknowledge)
        pages.post("doors/adopt", needs: .manageDoors, use: console.adoptDoor)
        pages.post("doors/rotate", needs: .manageDoors, use: console.rotateDoorSecret)
        pages.post("doors/retire", needs: .manageDoors, use: console.retireDoor)
        pages.post("doors/command", needs: .commandDoors, use: console.sendDoorCommand)
        pages.post("doors/settings", needs: .manageDoors, use: console.changeSettings)
        pages.post("doors/replica-key/rotate", needs: .manageDoors, use: console.rotateReplicaKey)
        pages.post("doors/replica-key/finish", needs: .manageDoors, use: console.finishReplicaKey)
        pages.get("users", needs: .viewUsers, use: console.usersPage)
        pages.post("users", needs: .changeUsers, use: console.addUser)
        pages.post("users/state", needs: .changeUsers, use: console.setUserState)
        pages.post("users/remove", needs: .changeUsers, use: console.removeUser)
        pages.post("users/totp", needs: .changeUsers, use: console.enrolTOTP)
        pages.post("users/cards", needs: .changeUsers, use: console.changeCard)
        pages.get("users/edit", needs: .viewUsers, use: console.editUserPage)
        pages.post("users/rule", needs: .changeUsers, use: console.saveUserRule)
        pages.post("users/enrol-code", needs: .issueCodes, use: console.issueEnrolmentCode)
        pages.post("users/learn-card", needs: .changeUsers, use: console.learnCard)
        pages.post("users/claim-card", needs: .changeUsers, use: console.claimCard)
        pages.get("codes", needs: .viewCodes, use: console.codesPage)
        pages.post("codes", needs: .issueCodes, use: console.issueCode)
        pages.post("codes/revoke", needs: .issueCodes, use: console.revokeCode)
        pages.get("visitors", needs: .viewVisitors, or: .hostVisitorPasses, use: console.visitorsPage)
        pages.post("visitors", needs: .issueVisitorPasses, or: .hostVisitorPasses, use: console.issueVisitorPass)
        pages.post("visitors/revoke", needs: .issueVisitorPasses, or: .hostVisitorPasses, use: console.revokeVisitorPass)
        pages.get("site", needs: .viewSite, use: console.sitePage)
        pages.post("site/mode", needs: .setModes, use: console.setMode)
        pages.post("site/unlock", needs: .changeSite, use: console.saveUnlock)
        pages.post("site/card-pin", needs: .changeSite, use: console.saveCardAndPIN)
        pages.post("site/holidays", needs: .changeSite, use: console.saveHoliday)
        pages.post("site/holidays/remove", needs: .changeSite, use: console.removeHoliday)
        pages.get("access", needs: .viewSite, use: console.accessPage)
        for (path, kind) in [("door-groups", AccessGroupKind.doorGroup), ("levels", .level), ("groups", .userGroup)] {
            pages.post(RouterPath("access/" + path), needs: .changeSite, use: console.saveAccessGroup(kind))
            pages.post(RouterPath("access/" + path + "/remove"), needs: .changeSite, use: console.accessGroupRemoval(kind))
        }
        pages.get("api", needs: .viewIntegrations, use: console.apiPage)
        pages.post("api/tokens", needs: .manageTokens, use: console.createToken)
        pages.post("api/tokens/revoke", needs: .manageTokens, use: console.revokeToken)
        pages.post("api/webhooks", needs: .manageWebhooks, use: console.addWebhook)
        pages.post("api/webhooks/remove", needs: .manageWebhooks, use: console.removeWebhook)
        pages.post("api/webhooks/resend", needs: .manageWebhooks, use: console.resendDelivery)
        pages.post("api/webhooks/enable", needs: .manageWebhooks, use: console.enableWebhook)
        pages.get("entries", needs: .viewEntries, use: console.entriesPage)
        data.get("entries.json", needs: .viewEntries, use: console.entriesJSON)
        pages.get("entries.csv", needs: .exportEntries, use: console.entriesCSV)
        if let tokens = services.tokens {
            SiteAPI.add(to: router, services: services, tokens: tokens, limits: APIRateLimits(), silentAfter: options.silentAfter)
        }
        return router
    }

    /// The console as an application on `host:port` (plain HTTP; the assembly adds TLS).
    public static func application(
        services: ConsoleServices, options: ConsoleOptions, server: HTTPServerBuilder, host: String, port: Int, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: router(services: services, options: options, logger: logger),
            server: server,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "kioskpad-console"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}

/// Hummingbird's request context plus the peer's address (login throttling, the trusted
/// proxy); the routes behind the login get an ``AdminRequestContext`` made from it.
public struct ConsoleRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// The administrator and the form, once ``ConsoleSessionMiddleware`` has admitted the request.
    var admitted: (visit: Visit, form: FormBody)?
    /// The API token, once ``APITokenMiddleware`` has admitted the request.
    var apiToken: APIToken?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// One request by a logged-in administrator: their session, whether the browser reached
/// the console over HTTPS, and the address it came from.
struct Visit: Sendable {
    let session: ConsoleSession
    let secure: Bool
    let source: String

    var admin: String { session.admin }

    /// The changes this administrator's role allows, as a template reads them
    /// (`{{#may.changeUsers}}`): a form the role may not send is not shown.
    var permissionFlags: [String: Bool] {
        var flags = Dictionary(uniqueKeysWithValues: session.role.permissions.map { (String(describing: $0), true) })
        // Issuing and revoking visitor passes: for any host, or as one.
        if flags["issueVisitorPasses"] == true || flags["hostVisitorPasses"] == true { flags["visitorPasses"] = true }
        return flags
    }

    /// The administrator as the actor of a change.
    var actor: Administrator { .console(admin, role: session.role, doorGroups: session.doorGroups, from: source) }
}

/// Building console responses: pages in the layout, redirects, JSON, plain text.
enum ConsoleResponse {
    static func page(
        _ template: String, title: String, page: String, visit: Visit?, data: [String: Any] = [:], notice: String? = nil, error: String? = nil,
        status: HTTPResponse.Status = .ok, cookies: [String] = [], refresh: String? = nil
    ) -> Response {
        var context = data
        if let visit {
            context["admin"] = visit.admin
            context["csrf"] = visit.session.csrfToken
            // What the page's forms may show: `may.users.change` and so on.
            context["may"] = visit.permissionFlags
        }
        let body = ConsoleTemplates.library.render(context, withTemplate: template) ?? ""
        var layout: [String: Any] = ["title": title, "page": page, "body": body]
        layout["on" + page.prefix(1).uppercased() + page.dropFirst()] = true
        if let visit {
            layout["admin"] = visit.admin
            layout["role"] = visit.session.role.name
            layout["csrf"] = visit.session.csrfToken
            layout.merge(ConsolePermissions.navigation(visit.session.role)) { $1 }
        }
        if let notice { layout["notice"] = notice }
        if let refresh { layout["refresh"] = refresh }
        if let error { layout["error"] = error }
        let html = ConsoleTemplates.library.render(layout, withTemplate: "layout") ?? ""
        var headers = ConsoleSecurity.headers(contentType: "text/html; charset=utf-8")
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    static func message(
        _ text: String, title: String, status: HTTPResponse.Status, visit: Visit? = nil, link: String? = nil, linkText: String = "Back",
        cookies: [String] = [], refresh: String? = nil
    ) -> Response {
        var data: [String: Any] = ["text": text]
        if let link {
            data["link"] = link
            data["linkText"] = linkText
        }
        return page("message", title: title, page: "message", visit: visit, data: data, status: status, cookies: cookies, refresh: refresh)
    }

    static func redirect(_ location: String, cookies: [String] = []) -> Response {
        var headers = ConsoleSecurity.headers(contentType: "text/plain; charset=utf-8")
        headers[.location] = location
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: .seeOther, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "See \(location)\n")))
    }

    static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: ConsoleSecurity.headers(contentType: "application/json"),
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: ConsoleJSON.bytes(object))))
    }

    static func text(_ text: String, type: String, status: HTTPResponse.Status = .ok, extra: [(HTTPField.Name, String)] = []) -> Response {
        var headers = ConsoleSecurity.headers(contentType: type)
        for (name, value) in extra { headers[name] = value }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
