import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import KioskPadAccess
import KioskPadCore
import SiteCore
import Synchronization

/// The console's security plumbing: random tokens, the hash a session is stored under,
/// cookies, and the headers every page is sent with.
enum ConsoleSecurity {
    static let sessionCookie = "kp_session"
    /// The login form's own token (a double-submit cookie: a form from elsewhere cannot know it).
    static let loginCookie = "kp_login"
    /// No inline script or style, nothing from elsewhere, no framing.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// 32 random bytes as URL-safe base64 (no padding).
    static func newToken() -> String {
        RandomToken.text()
    }

    /// What a session is stored under: the SHA-256 of its token, hex.
    static func hash(_ token: String) -> String {
        RandomToken.hash(token)
    }

    static func sameToken(_ lhs: String?, _ rhs: String) -> Bool {
        guard let lhs else { return false }
        return ConstantTime.equal(Array(lhs.utf8), Array(rhs.utf8))
    }

    /// A cookie's value from the request's `Cookie` headers.
    static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name { return String(parts[1]) }
            }
        }
        return nil
    }

    /// A sign-in begun at the identity provider (``PendingSignIn``): SameSite=Lax, so the
    /// provider's redirect back (a top-level GET from its site) brings it; only to the callback.
    static let signInCookie = "kp_signin"

    static func setSignInCookie(_ value: String, secure: Bool, maxAge: Int) -> String {
        "\(signInCookie)=\(value); Path=/console/login/; HttpOnly; SameSite=Lax\(secure ? "; Secure" : ""); Max-Age=\(maxAge)"
    }

    /// A `Set-Cookie` value scoped to the console: HttpOnly, SameSite=Strict, Secure when
    /// the browser reached it over HTTPS. `maxAge` 0 deletes it.
    static func setCookie(_ name: String, _ value: String, secure: Bool, maxAge: Int? = nil) -> String {
        var cookie = "\(name)=\(value); Path=/console/; HttpOnly; SameSite=Strict"
        if secure { cookie += "; Secure" }
        if let maxAge { cookie += "; Max-Age=\(maxAge)" }
        return cookie
    }

    /// Headers on every console response: the policy, no sniffing, no referrer, no framing,
    /// and nothing kept in a cache (pages show users, codes and events).
    static func headers(contentType: String) -> HTTPFields {
        var fields = HTTPFields()
        fields[.contentType] = contentType
        fields[.contentSecurityPolicy] = contentSecurityPolicy
        fields[.cacheControl] = "no-store"
        fields[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        fields[HTTPField.Name("X-Frame-Options")!] = "DENY"
        fields[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return fields
    }
}

/// Failed logins per source address within a window, in this process: a source over the
/// limit is refused before any password is checked. (Per-administrator lockout is in the
/// database, so it holds across instances.)
final class LoginThrottle: Sendable {
    private let failures = Mutex<[String: [Date]]>([:])
    let limit: Int
    let window: TimeInterval

    init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    func isBlocked(_ source: String, now: Date) -> Bool {
        failures.withLock { table in
            let recent = (table[source] ?? []).filter { now.timeIntervalSince($0) < window }
            table[source] = recent.isEmpty ? nil : recent
            return recent.count >= limit
        }
    }

    func noteFailure(_ source: String, now: Date) {
        failures.withLock { table in
            if table.count > 10_000 { table = table.filter { $0.value.contains { now.timeIntervalSince($0) < window } } }
            table[source, default: []].append(now)
        }
    }
}
