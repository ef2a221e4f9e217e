import Foundation
import Hummingbird
import KioskPadAccess
import KioskPadCore
import SiteCore

/// Logging in and out. A login form carries a token that must match its cookie (a form
/// posted from another site cannot); a login always makes a new session token (an old or
/// planted cookie is never promoted); failures count per administrator (in the database,
/// locking the account for a while) and per source address (in this process).
extension ConsoleHandler {
    func loginPage(_ request: Request, _ context: ConsoleRequestContext) async -> Response {
        // Always the form, even with a session: a login then replaces whatever session the
        // browser held (one planted by someone else included).
        guard let secure = secureTransport(request, context) else { return ConsoleHandler.refusedTransport() }
        return loginForm(secure: secure)
    }

    func loginForm(secure: Bool, error: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        let token = ConsoleSecurity.newToken()
        var data: [String: Any] = ["loginToken": token]
        if let signIn = services.signIn { data["provider"] = signIn.options.label }
        return ConsoleResponse.page(
            "login", title: "Log in", page: "login", visit: nil, data: data, error: error, status: status,
            cookies: [ConsoleSecurity.setCookie(ConsoleSecurity.loginCookie, token, secure: secure, maxAge: 3_600)])
    }

    func login(_ request: Request, _ context: ConsoleRequestContext) async -> Response {
        guard let secure = secureTransport(request, context) else { return ConsoleHandler.refusedTransport() }
        let from = source(request, context)
        let now = services.now()
        do {
            let form = try await readForm(request)
            guard let expected = ConsoleSecurity.cookie(ConsoleSecurity.loginCookie, in: request), ConsoleSecurity.sameToken(form["login_token"], expected)
            else {
                return loginForm(secure: secure, error: "The login form was out of date or did not come from this console. Try again.", status: .forbidden)
            }
            if throttle.isBlocked(from, now: now) {
                try? await services.store.audit([("time", ConsoleTime.stamp(now)), ("action", "console_login"), ("result", "throttled"), ("source", from)])
                return loginForm(
                    secure: secure, error: "Too many failed logins from this address. Wait \(Int(options.sourceWindow / 60)) minutes and try again.",
                    status: .tooManyRequests)
            }
            let name = form.text("name") ?? ""
            let password = Array((form["password"] ?? "").utf8)
            // An account of the identity provider has no password here: it is answered as an unknown name.
            guard let account = Identifier.isValid(name) ? try await services.console.admin(name: name) : nil, account.provider == nil else {
                let decoy = try await decoy.hash(services.console, now: now)
                _ = try await HashingPool.shared.run(.console) { decoy.matches(password: password) }
                throttle.noteFailure(from, now: now)
                try await services.store.audit([
                    ("time", ConsoleTime.stamp(now)), ("action", "console_login"), ("result", "unknown administrator"), ("source", from),
                ])
                return loginForm(secure: secure, error: wrongLogin, status: .unauthorized)
            }
            if let until = account.lockedUntil, until > now {
                // Answered as an unknown name is, after a hash of the same cost: neither the
                // words nor the time tell that this administrator exists.
                let hash = account.hash
                _ = try await HashingPool.shared.run(.console) { hash.matches(password: password) }
                throttle.noteFailure(from, now: now)
                try await services.store.audit([
                    ("time", ConsoleTime.stamp(now)), ("action", "console_login"), ("admin", name), ("result", "locked"), ("source", from),
                ])
                return loginForm(secure: secure, error: wrongLogin, status: .unauthorized)
            }
            // The password, and with TOTP the app's code as well; a code is taken once (its step is claimed).
            // The hash runs on the hashing pool's console lane: door attempts go first.
            let hash = account.hash
            guard try await HashingPool.shared.run(.console, { hash.matches(password: password) }) else {
                return try await refuse(name: name, from: from, now: now, secure: secure, why: "wrong password")
            }
            if let secret = account.totpSecret {
                guard let step = TOTP(secret: secret).matchingStep(Array((form.text("code") ?? "").utf8), at: Int(now.timeIntervalSince1970)) else {
                    return try await refuse(name: name, from: from, now: now, secure: secure, why: "wrong code")
                }
                guard try await services.console.claimAdminTOTPStep(name: name, step: step) else {
                    return try await refuse(name: name, from: from, now: now, secure: secure, why: "code used before")
                }
            }
            try await services.console.clearFailedLogins(name: name)
            // Whatever session cookie the browser had ends here; the new one is made by us.
            if let old = ConsoleSecurity.cookie(ConsoleSecurity.sessionCookie, in: request) {
                try await services.console.endSession(tokenHash: ConsoleSecurity.hash(old))
            }
            let token = ConsoleSecurity.newToken()
            let session = ConsoleSession(
                tokenHash: ConsoleSecurity.hash(token), admin: name, csrfToken: ConsoleSecurity.newToken(), created: now,
                expires: now.addingTimeInterval(options.sessionLifetime), role: account.role,
                doorGroups: account.doorGroups)
            try await services.console.createSession(session, idle: options.sessionIdle)
            // With a provider configured, a local sign-in is the one for when it is down: audited as such.
            try await services.store.audit(
                [("time", ConsoleTime.stamp(now)), ("action", "console_login"), ("admin", name), ("result", "ok"), ("source", from)]
                    + [("method", services.signIn == nil ? "password" : "local account (identity provider configured)")])
            return ConsoleResponse.redirect(
                ConsolePermissions.home(for: account.role.permissions),
                cookies: [
                    ConsoleSecurity.setCookie(ConsoleSecurity.sessionCookie, token, secure: secure, maxAge: Int(options.sessionLifetime)),
                    ConsoleSecurity.setCookie(ConsoleSecurity.loginCookie, "", secure: secure, maxAge: 0),
                ])
        } catch let error as FormTooLarge {
            return loginForm(secure: secure, error: error.description, status: .contentTooLarge)
        } catch is HashingPool.Busy {
            return loginForm(secure: secure, error: ConsoleHandler.busy, status: .tooManyRequests)
        } catch {
            logger.error("console: login failed on the verifier's database", metadata: ["error": "\(error)"])
            return ConsoleResponse.message(
                "The verifier's database cannot be used now. Try again in a moment.", title: "Unavailable", status: .serviceUnavailable)
        }
    }

    /// A login refused because too many were being checked at once (door attempts go first).
    static let busy = "The console is checking too many logins at once. Try again in a moment."

    /// One message for every refused login (wrong name, password or code, or a locked
    /// administrator), so it does not tell which part was wrong, nor whether the name exists.
    var wrongLogin: String {
        "Wrong name, password or code. After \(options.loginFailureLimit) wrong logins in a row an administrator "
            + "is locked for \(Int(options.lockoutSeconds / 60)) minutes."
    }

    /// A failed login of a known administrator: counted (lockout), throttled, audited.
    func refuse(name: String, from: String, now: Date, secure: Bool, why: String) async throws -> Response {
        throttle.noteFailure(from, now: now)
        try await services.console.noteFailedLogin(name: name, now: now, limit: options.loginFailureLimit, lockFor: options.lockoutSeconds)
        try await services.store.audit([("time", ConsoleTime.stamp(now)), ("action", "console_login"), ("admin", name), ("result", why), ("source", from)])
        return loginForm(secure: secure, error: wrongLogin, status: .unauthorized)
    }

    func logout(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let visit = context.visit
        try await services.console.endSession(tokenHash: visit.session.tokenHash)
        try await services.store.audit([
            ("time", ConsoleTime.stamp(services.now())), ("action", "console_logout"), ("admin", visit.admin), ("source", visit.source),
        ])
        let ended = ConsoleSecurity.setCookie(ConsoleSecurity.sessionCookie, "", secure: visit.secure, maxAge: 0)
        // Signed in through the provider: signed out here, and offered the provider's own
        // sign-out (a link: the console's form-action policy keeps a form from leaving the site).
        if visit.session.provider != nil, let signIn = services.signIn,
            let away = await signIn.signOutURL(after: ConsoleProviderPaths.loginURL(signIn.options.redirectURL))
        {
            return ConsoleResponse.message(
                "You are signed out of the console. You are still signed in at the identity provider until you sign out there too.",
                title: "Signed out", status: .ok, link: away, linkText: "Sign out at the identity provider", cookies: [ended])
        }
        return ConsoleResponse.redirect("/console/login", cookies: [ended])
    }
}
