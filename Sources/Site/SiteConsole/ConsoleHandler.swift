import Foundation
import HTTPTypes
import Hummingbird
import KioskPadAccess
import KioskPadStorage
import Logging
import SiteCore

/// The console's request handling: who is asking (session, transport, source) and the
/// pages (in the extensions beside this file). Store failures become a 503 page that says
/// nothing was changed; they are logged without form values.
struct ConsoleHandler: Sendable {
    let services: ConsoleServices
    let options: ConsoleOptions
    let logger: Logger
    let throttle: LoginThrottle
    /// What a login with an unknown name is checked against, so it takes as long as a known one.
    let decoy = ConsoleDecoyPassword()

    init(services: ConsoleServices, options: ConsoleOptions, logger: Logger) {
        self.services = services
        self.options = options
        self.logger = logger
        throttle = LoginThrottle(limit: options.sourceFailureLimit, window: options.sourceWindow)
    }

    static let maxFormBytes = 65_536

    /// Whether the browser reached the console over HTTPS; nil when a request from the
    /// trusted proxy did not come over HTTPS (refused: the cookie must not travel in clear).
    func secureTransport(_ request: Request, _ context: ConsoleRequestContext) -> Bool? {
        if options.tls { return true }
        if let proxy = options.trustedProxy, context.remoteAddress?.ipAddress == proxy {
            return request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https" ? true : nil
        }
        return false
    }

    /// The client's address: behind the trusted proxy, the right-most `X-Forwarded-For`
    /// entry that is an address other than the proxy's (``ForwardedFor``); an entry that is
    /// no address counts as the proxy itself.
    func source(_ request: Request, _ context: ConsoleRequestContext) -> String {
        let peer = context.remoteAddress?.ipAddress ?? "unknown"
        guard let proxy = options.trustedProxy else { return peer }
        return ForwardedFor.client(
            peer: peer, forwarded: request.headers[values: HTTPField.Name("X-Forwarded-For")!], trusted: ForwardedFor.trusted([proxy]))
    }

    static func refusedTransport() -> Response {
        ConsoleResponse.message(
            "The console is served only over HTTPS through the configured proxy (server.console.trusted_proxy).", title: "HTTPS required",
            status: .forbidden)
    }

    /// Runs `next` for a logged-in administrator (``ConsoleSessionMiddleware`` calls it for
    /// every route behind the login). Without a session: to the login page, or 401 for
    /// `json`. A POST must carry the session's form token, else 403 and nothing changes. A
    /// form too large, a busy hashing pool or a database that fails becomes a page saying
    /// nothing was changed.
    func admit(
        _ request: Request, _ context: ConsoleRequestContext, json: Bool,
        _ next: (Visit, FormBody) async throws -> Response
    ) async -> Response {
        guard let secure = secureTransport(request, context) else { return ConsoleHandler.refusedTransport() }
        do {
            let now = services.now()
            guard let token = ConsoleSecurity.cookie(ConsoleSecurity.sessionCookie, in: request),
                let session = try await services.console.session(tokenHash: ConsoleSecurity.hash(token), now: now, idle: options.sessionIdle)
            else {
                return json ? ConsoleResponse.json(["error": "log in again"], status: .unauthorized) : ConsoleResponse.redirect("/console/login")
            }
            let visit = Visit(session: session, secure: secure, source: source(request, context))
            var form = FormBody(request.uri.query ?? "")
            if request.method == .post {
                form = try await readForm(request)
                guard ConsoleSecurity.sameToken(form["csrf"], session.csrfToken) else {
                    logger.warning(
                        "console: form without this session's token refused", metadata: ["admin": "\(session.admin)", "path": "\(request.uri.path)"])
                    return ConsoleResponse.message(
                        "This form was out of date or did not come from this console; nothing was changed. Reload the page and try again.",
                        title: "Form refused", status: .forbidden, visit: visit, link: "/console/doors")
                }
            }
            return try await next(visit, form)
        } catch let error as FormTooLarge {
            return ConsoleResponse.message(error.description, title: "Form refused", status: .contentTooLarge)
        } catch let refusal as NotPermitted {
            return ConsoleResponse.message(refusal.description, title: "Not permitted", status: .forbidden)
        } catch is HashingPool.Busy {
            return ConsoleResponse.message(
                "The site server is checking too many PINs at once; nothing was changed. Try again in a moment.", title: "Busy", status: .tooManyRequests)
        } catch {
            logger.error("console: the verifier's database failed", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            return ConsoleResponse.message(
                "The verifier's database cannot be used now; nothing was changed. Try again in a moment.", title: "Unavailable", status: .serviceUnavailable)
        }
    }

    struct FormTooLarge: Error, CustomStringConvertible {
        var description: String { "The form is larger than \(ConsoleHandler.maxFormBytes) bytes; nothing was changed." }
    }

    func readForm(_ request: Request) async throws -> FormBody {
        var buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: ConsoleHandler.maxFormBytes)
        } catch {
            throw FormTooLarge()
        }
        return FormBody(buffer.readString(length: buffer.readableBytes) ?? "")
    }

    /// The signed-in administrator's changes: each made through ``AdministratorChanges`` with
    /// its one audit record (who, what, from where; never a PIN or code).
    func changes(_ visit: Visit) -> AdministratorChanges {
        AdministratorChanges(store: services.store, by: visit.actor, now: services.now)
    }

    @discardableResult
    func change<R: Sendable>(
        _ visit: Visit, _ action: AdministratorAction, _ fields: [(String, String)] = [], _ body: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        try await changes(visit).apply(action, fields, body)
    }

    @discardableResult
    func change<R: Sendable>(
        _ visit: Visit, _ action: AdministratorAction, reporting body: @escaping @Sendable () async throws -> (R, [(String, String)])
    ) async throws -> R {
        try await changes(visit).apply(action, reporting: body)
    }

    /// The site's zone for showing times (the host's when none is set or it cannot be read).
    func siteZone() async throws -> TimeZone {
        let id = try await services.administration.siteRules().timeZone
        return id.flatMap(TimeZone.init(identifier:)) ?? .current
    }
}

/// Times as the console writes them.
enum ConsoleTime {
    static func stamp(_ date: Date) -> String {
        UTCTimestamp.rfc3339(date, milliseconds: true)
    }

    /// `YYYY-MM-DD HH:MM:SS` in `zone`.
    static func local(_ date: Date, _ zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    /// `YYYY-MM-DD` or `YYYY-MM-DD HH:MM` in `zone`; nil when it is neither.
    static func parse(_ text: String, _ zone: TimeZone) -> Date? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "T" })
        let day = parts.first?.split(separator: "-").compactMap { Int($0) } ?? []
        guard day.count == 3, parts.count <= 2 else { return nil }
        var time = [0, 0]
        if parts.count == 2 {
            time = parts[1].split(separator: ":").compactMap { Int($0) }
            guard time.count == 2, (0...23).contains(time[0]), (0...59).contains(time[1]) else { return nil }
        }
        guard (1...12).contains(day[1]), (1...31).contains(day[2]) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: day[0], month: day[1], day: day[2], hour: time[0], minute: time[1]))
    }
}
