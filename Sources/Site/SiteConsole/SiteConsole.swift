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
        router.post("/console/logout") { request, context in await console.logout(request, context) }
        router.get("/console/doors") { request, context in await console.doorsPage(request, context) }
        router.get("/console/doors.json") { request, context in await console.doorsJSON(request, context) }
        router.post("/console/doors/ack") { request, context in await console.acknowledge(request, context) }
        router.get("/console/users") { request, context in await console.usersPage(request, context) }
        router.post("/console/users") { request, context in await console.addUser(request, context) }
        router.post("/console/users/state") { request, context in await console.setUserState(request, context) }
        router.post("/console/users/remove") { request, context in await console.removeUser(request, context) }
        router.post("/console/users/totp") { request, context in await console.enrolTOTP(request, context) }
        router.post("/console/users/cards") { request, context in await console.changeCard(request, context) }
        router.get("/console/users/edit") { request, context in await console.editUserPage(request, context) }
        router.post("/console/users/rule") { request, context in await console.saveUserRule(request, context) }
        router.get("/console/codes") { request, context in await console.codesPage(request, context) }
        router.post("/console/codes") { request, context in await console.issueCode(request, context) }
        router.post("/console/codes/revoke") { request, context in await console.revokeCode(request, context) }
        router.get("/console/entries") { request, context in await console.entriesPage(request, context) }
        router.get("/console/entries.json") { request, context in await console.entriesJSON(request, context) }
        router.get("/console/entries.csv") { request, context in await console.entriesCSV(request, context) }
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

/// Hummingbird's request context plus the peer's address (login throttling, the trusted proxy).
public struct ConsoleRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

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
}

/// Building console responses: pages in the layout, redirects, JSON, plain text.
enum ConsoleResponse {
    static func page(
        _ template: String, title: String, page: String, visit: Visit?, data: [String: Any] = [:], notice: String? = nil, error: String? = nil,
        status: HTTPResponse.Status = .ok, cookies: [String] = []
    ) -> Response {
        var context = data
        if let visit {
            context["admin"] = visit.admin
            context["csrf"] = visit.session.csrfToken
        }
        let body = ConsoleTemplates.library.render(context, withTemplate: template) ?? ""
        var layout: [String: Any] = ["title": title, "page": page, "body": body]
        layout["on" + page.prefix(1).uppercased() + page.dropFirst()] = true
        if let visit {
            layout["admin"] = visit.admin
            layout["csrf"] = visit.session.csrfToken
        }
        if let notice { layout["notice"] = notice }
        if let error { layout["error"] = error }
        let html = ConsoleTemplates.library.render(layout, withTemplate: "layout") ?? ""
        var headers = ConsoleSecurity.headers(contentType: "text/html; charset=utf-8")
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    static func message(_ text: String, title: String, status: HTTPResponse.Status, visit: Visit? = nil, link: String? = nil, linkText: String = "Back")
        -> Response
    {
        var data: [String: Any] = ["text": text]
        if let link {
            data["link"] = link
            data["linkText"] = linkText
        }
        return page("message", title: title, page: "message", visit: visit, data: data, status: status)
    }

    static func redirect(_ location: String, cookies: [String] = []) -> Response {
        var headers = ConsoleSecurity.headers(contentType: "text/plain; charset=utf-8")
        headers[.location] = location
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: .seeOther, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "See \(location)\n")))
    }

    static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(
            status: status, headers: ConsoleSecurity.headers(contentType: "application/json"), body: ResponseBody(byteBuffer: ByteBuffer(bytes: Array(data))))
    }

    static func text(_ text: String, type: String, status: HTTPResponse.Status = .ok, extra: [(HTTPField.Name, String)] = []) -> Response {
        var headers = ConsoleSecurity.headers(contentType: type)
        for (name, value) in extra { headers[name] = value }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
