import Foundation
import HTTPTypes
import Hummingbird
import KioskPadAccess
import SiteCore
import SiteSignIn

/// Signing in through the organisation's identity provider (`server.console.openid`):
/// `/console/login/provider` sends the browser there with a fresh ``PendingSignIn`` in its
/// cookie; `/console/login/callback` takes the answer, checks it (``OpenIDSignIn``), makes or
/// re-roles the person's account through the application layer (``AdministratorAccounts``,
/// by the provider as actor) and starts a session that ends after `session_minutes`, so a
/// person removed or re-roled at the provider is so here by then. A refusal is audited
/// (`console_login` with the reason) and shown on a page that says what to do.
extension ConsoleHandler {
    func sendToProvider(_ request: Request, _ context: ConsoleRequestContext) async -> Response {
        guard let secure = secureTransport(request, context) else { return ConsoleHandler.refusedTransport() }
        guard let signIn = services.signIn else { return Self.noProvider }
        do {
            let (url, pending) = try await signIn.begin()
            return ConsoleResponse.redirect(url, cookies: [ConsoleSecurity.setSignInCookie(pending.cookie, secure: secure, maxAge: 600)])
        } catch {
            return await refused(error, name: nil, from: source(request, context), secure: secure)
        }
    }

    func providerCallback(_ request: Request, _ context: ConsoleRequestContext) async -> Response {
        guard let secure = secureTransport(request, context) else { return ConsoleHandler.refusedTransport() }
        guard let signIn = services.signIn else { return Self.noProvider }
        let from = source(request, context)
        let query = FormBody(request.uri.query ?? "")
        let person: SignedInPerson
        do {
            if let said = query.text("error") {
                // access_denied (the person said no, or the provider's own policy did) and the like.
                throw SignInRefusal.request("the identity provider answered \(said.prefix(64)) instead of signing you in")
            }
            guard let cookie = ConsoleSecurity.cookie(ConsoleSecurity.signInCookie, in: request), let pending = PendingSignIn(cookie: cookie) else {
                throw SignInRefusal.request("no sign-in was begun in this browser, or it took longer than ten minutes")
            }
            person = try await signIn.finish(code: query.text("code") ?? "", state: query.text("state") ?? "", pending: pending, now: services.now())
        } catch {
            return await refused(error, name: nil, from: from, secure: secure)
        }
        let issuer = signIn.options.issuer
        let now = services.now()
        do {
            let changes = AdministratorChanges(store: services.store, by: .identityProvider(issuer, from: from))
            let accounts = AdministratorAccounts(console: services.console, administration: services.administration, changes: changes, location: "the site")
            try await accounts.signInFromProvider(person.name, provider: issuer, role: person.grant.role, doorGroups: person.grant.doorGroups)
            if let old = ConsoleSecurity.cookie(ConsoleSecurity.sessionCookie, in: request) {
                try await services.console.endSession(tokenHash: ConsoleSecurity.hash(old))
            }
            let lifetime = min(options.sessionLifetime, signIn.options.sessionLifetime)
            let token = ConsoleSecurity.newToken()
            let session = ConsoleSession(
                tokenHash: ConsoleSecurity.hash(token), admin: person.name, csrfToken: ConsoleSecurity.newToken(), created: now,
                expires: now.addingTimeInterval(lifetime), role: person.grant.role, doorGroups: person.grant.doorGroups, provider: issuer)
            try await services.console.createSession(session, idle: options.sessionIdle)
            try await services.store.audit([
                ("time", ConsoleTime.stamp(now)), ("action", "console_login"), ("admin", person.name), ("result", "ok"), ("source", from),
                ("method", "openid"), ("subject", person.subject), ("role", person.grant.role.name),
            ])
            // A page, not a redirect: the session cookie is SameSite=Strict, and a browser does
            // not send it on a redirect whose chain began at the provider's site.
            let home = ConsolePermissions.home(for: person.grant.role.permissions)
            return ConsoleResponse.message(
                "Signed in as \(person.name) (\(person.grant.role.name)).", title: "Signed in", status: .ok, link: home, linkText: "Continue",
                cookies: [
                    ConsoleSecurity.setCookie(ConsoleSecurity.sessionCookie, token, secure: secure, maxAge: Int(lifetime)),
                    ConsoleSecurity.setSignInCookie("", secure: secure, maxAge: 0),
                ], refresh: home)
        } catch let problem as UserEditError {
            return await refused(SignInRefusal.account(problem.description), name: person.name, from: from, secure: secure)
        } catch {
            logger.error("console: sign-in through the identity provider failed on the verifier's database", metadata: ["error": "\(error)"])
            return ConsoleResponse.message(
                "The verifier's database cannot be used now. Try again in a moment.", title: "Unavailable", status: .serviceUnavailable)
        }
    }

    /// A refused sign-in: audited with its reason, and a page saying what happened and what to do.
    func refused(_ error: any Error, name: String?, from: String, secure: Bool) async -> Response {
        let refusal = error as? SignInRefusal ?? .provider("\(error)")
        var person = name
        if case .noRole(let who, _) = refusal { person = who }
        var record = [("time", ConsoleTime.stamp(services.now())), ("action", "console_login")]
        if let person { record.append(("admin", person)) }
        record += [("result", refusal.result), ("source", from), ("method", "openid"), ("reason", refusal.description)]
        do { try await services.store.audit(record) } catch {
            logger.error("console: a refused sign-in was not audited", metadata: ["error": "\(error)"])
        }
        logger.notice("console: sign-in through the identity provider refused", metadata: ["reason": "\(refusal)", "source": "\(from)"])
        let ended = ConsoleSecurity.setSignInCookie("", secure: secure, maxAge: 0)
        switch refusal {
        case .noRole(let who, _):
            // Still signed in at the provider: its sign-out lets another person sign in from this browser.
            let away = await services.signIn?.signOutURL(after: ConsoleProviderPaths.loginURL(services.signIn?.options.redirectURL ?? ""))
            return ConsoleResponse.message(
                "The identity provider signed you in as \(who), but none of your groups gives a role on this console. Ask the site's owner to add your group to server.console.openid.roles.",
                title: "No role on this console", status: .forbidden, link: away ?? "/console/login",
                linkText: away == nil ? "Back to the login" : "Sign out at the identity provider", cookies: [ended])
        case .provider(let why):
            return ConsoleResponse.message(
                "The identity provider cannot sign you in now: \(why). An owner can still log in with a local account.", title: "Identity provider unavailable",
                status: .serviceUnavailable, link: "/console/login", linkText: "Back to the login", cookies: [ended])
        case .request, .token, .account:
            return ConsoleResponse.message(
                "The sign-in was refused: \(refusal). Nothing was changed. Try again from the login page.", title: "Sign-in refused", status: .forbidden,
                link: "/console/login", linkText: "Back to the login", cookies: [ended])
        }
    }

    static let noProvider = ConsoleResponse.message(
        "This console signs in with local accounts only (no server.console.openid in the site's config).", title: "Not found", status: .notFound,
        link: "/console/login", linkText: "Back to the login")
}

/// The console's own addresses, from the callback the provider knows.
enum ConsoleProviderPaths {
    /// The login page beside `redirectURL` (`https://host/console/login`).
    static func loginURL(_ redirectURL: String) -> String {
        guard var parts = URLComponents(string: redirectURL) else { return "/console/login" }
        parts.path = "/console/login"
        parts.query = nil
        return parts.string ?? "/console/login"
    }
}
