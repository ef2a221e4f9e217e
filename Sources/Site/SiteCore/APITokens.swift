import Crypto
import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadStorage

/// What an API token may do (`/api/v1/`). `read` reads everything the API shows; each of the
/// others changes one area and implies reading it.
public enum APIScope: String, Sendable, CaseIterable, Comparable {
    /// Every `GET`.
    case read
    /// Users and their cards: create, change, disable, delete.
    case users
    /// One-time and enrolment codes: issue, revoke.
    case codes
    /// Doors and the site: modes, alerts, holidays, schedules.
    case doors
    /// Webhook subscriptions: add, remove, send a failed delivery again.
    case webhooks

    public static func < (lhs: APIScope, rhs: APIScope) -> Bool { lhs.rawValue < rhs.rawValue }

    /// What a scope lets a token do, within its role (``SiteRole``): `read` every view, the
    /// others their area's changes.
    public var permissions: Set<SitePermission> {
        switch self {
        case .read: SitePermission.views
        case .users: [.changeUsers]
        case .codes: [.issueCodes, .issueVisitorPasses, .hostVisitorPasses]
        case .doors: [.changeSite, .setModes, .acknowledgeAlerts, .commandDoors, .clearLockouts, .manageDoors]
        case .webhooks: [.manageWebhooks]
        }
    }

    /// What a token of `scopes` may do before its role narrows it: every scope reads.
    public static func permissions(of scopes: Set<APIScope>) -> Set<SitePermission> {
        scopes.isEmpty ? [] : scopes.reduce(into: APIScope.read.permissions) { $0.formUnion($1.permissions) }
    }

    /// `read,users` as scopes, or an error naming the word that is not one.
    public static func parse(_ text: String) throws -> Set<APIScope> {
        var scopes: Set<APIScope> = []
        for word in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !word.isEmpty {
            guard let scope = APIScope(rawValue: word) else {
                throw APITokenProblem("--scope: \(word) is not a scope (use \(APIScope.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            scopes.insert(scope)
        }
        guard !scopes.isEmpty else { throw APITokenProblem("--scope: give at least one of \(APIScope.allCases.map(\.rawValue).joined(separator: ", "))") }
        return scopes
    }
}

/// An API token as the site keeps it: never the token itself, only its SHA-256.
public struct APIToken: Sendable, Equatable {
    public let name: String
    public let scopes: Set<APIScope>
    /// What the token is on the site; its scopes narrow it (``permissions``).
    public let role: SiteRole
    /// Who made it (the audit's `admin`).
    public let createdBy: String
    public let created: Date
    public let expires: Date?
    public let revoked: Date?
    public let lastUsed: Date?

    public init(
        name: String, scopes: Set<APIScope>, role: SiteRole = .administrator, createdBy: String, created: Date, expires: Date?, revoked: Date? = nil,
        lastUsed: Date? = nil
    ) {
        self.name = name
        self.scopes = scopes
        self.role = role
        self.createdBy = createdBy
        self.created = created
        self.expires = expires
        self.revoked = revoked
        self.lastUsed = lastUsed
    }

    /// Whether it may be used at `now`: not revoked and not expired.
    public func isLive(at now: Date) -> Bool {
        revoked == nil && (expires.map { now < $0 } ?? true)
    }

    /// Whether it grants `scope` (any scope grants reading).
    public func grants(_ scope: APIScope) -> Bool {
        scope == .read ? !scopes.isEmpty : scopes.contains(scope)
    }

    /// What it may do: its role's permissions within its scopes'.
    public var permissions: Set<SitePermission> { role.permissions.intersection(APIScope.permissions(of: scopes)) }

    /// The token as the actor of a change made from `address`.
    public func actor(from address: String) -> Administrator {
        .apiToken(name, role: role, scopes: scopes, from: address)
    }
}

/// Why a token cannot be made or used as asked.
public struct APITokenProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A random secret of 256 bits as URL-safe base64 (no padding), and the SHA-256 (hex) it is
/// stored and looked up under: the console's session tokens and the API's tokens alike. A
/// token is 256 random bits, so a fast hash is enough: it cannot be found from its hash, and
/// a request is found by its hash in one indexed read.
public enum RandomToken {
    public static func text() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func hash(_ token: String) -> String {
        LowercaseHex.string(SHA256.hash(data: Array(token.utf8)))
    }
}

/// An API token's secret: `kpt_` and a ``RandomToken``, shown once; the site keeps only its hash.
public enum APITokenSecret {
    public static let prefix = "kpt_"

    public static func generate() -> String {
        prefix + RandomToken.text()
    }

    /// What a token is stored and looked up under.
    public static func hash(_ token: String) -> String {
        RandomToken.hash(token)
    }
}

/// The API tokens in the site's database (every instance sees the same).
public protocol APITokenStore: Sendable {
    /// Stores `token` under `hash`; false when a token of that name exists (revoked ones too).
    func addToken(_ token: APIToken, hash: String) async throws -> Bool
    /// Revokes token `name` at `at`; false when there is none or it was revoked already.
    func revokeToken(name: String, at: Date) async throws -> Bool
    /// Every token, by name.
    func tokens() async throws -> [APIToken]
    /// The token stored under `hash`, its last use set to `now` when the one kept is a minute
    /// old or more (nil: none).
    func useToken(hash: String, now: Date) async throws -> APIToken?
    /// Claims `key` of `token` for a request with `fingerprint` (keys older than `since`
    /// forgotten first): ``IdempotencyClaim/new`` when this request is the first, else what
    /// the first one left.
    func claimIdempotencyKey(token: String, key: String, fingerprint: String, now: Date, since: Date) async throws -> IdempotencyClaim
    /// Keeps the answer to the request that claimed `key`.
    func finishIdempotencyKey(token: String, key: String, status: Int, body: String) async throws
    /// Runs `body` as one write transaction that every store on this database joins: a
    /// request's key claim, the change it makes and its kept answer commit together.
    func committing<R: Sendable>(_ body: @escaping @Sendable () async throws -> R) async throws -> R
}

/// What an `Idempotency-Key` already holds when a request presents it.
public enum IdempotencyClaim: Sendable, Equatable {
    /// Nobody used it: this request is run, and its answer kept.
    case new
    /// A request with it is still being answered (only a claim an earlier kioskpad left: a
    /// claim now commits with its answer).
    case running(fingerprint: String)
    /// A request with it was answered so.
    case answered(fingerprint: String, status: Int, body: String)

    /// A claim still running after this long was left by a request that never finished (an
    /// earlier kioskpad claimed keys in a transaction of their own, so a crash could leave one):
    /// the next request with the key takes it over. Longer than any request runs.
    public static let abandonedAfter: TimeInterval = 60
}

/// Making and revoking tokens, for the command line and the console alike: each a change by
/// an administrator (``AdministratorChanges``), audited as `token_create` or `token_revoke`
/// with the token's name and scopes, never its secret.
public struct APITokenAdministration: Sendable {
    let store: any APITokenStore
    let changes: AdministratorChanges

    public init(store: any APITokenStore, changes: AdministratorChanges) {
        self.store = store
        self.changes = changes
    }

    /// Makes token `name` of `role` narrowed to `scopes`; returns its secret (shown once).
    /// `expires`: nil for none. Refused when the role has a permission the actor lacks.
    public func create(name: String, scopes: Set<APIScope>, role: SiteRole = .administrator, expires: Date?, now: Date = Date()) async throws -> String {
        guard Identifier.isValid(name) else { throw APITokenProblem("NAME: \(name) is not a token name (1-64 of letters, digits, '.', '_' or '-')") }
        if let expires, expires <= now { throw APITokenProblem("--expires: the token would be expired already") }
        guard changes.administrator.mayGrant(role) else {
            throw APITokenProblem("--role: \(changes.administrator.name) (\(changes.administrator.role.name)) may not make a token of role \(role.name)")
        }
        let secret = APITokenSecret.generate()
        let token = APIToken(name: name, scopes: scopes, role: role, createdBy: changes.administrator.name, created: now, expires: expires)
        let scopeText = scopes.sorted().map(\.rawValue).joined(separator: ",")
        var fields = [("token", name), ("scopes", scopeText), ("role", role.name)]
        if let expires { fields.append(("expires", UTCTimestamp.rfc3339(expires))) }
        try await changes.apply(.tokenCreate, fields) {
            guard try await store.addToken(token, hash: APITokenSecret.hash(secret)) else {
                throw APITokenProblem("NAME: a token named \(name) exists already (names are not reused; choose another)")
            }
        }
        return secret
    }

    /// Revokes token `name` at once.
    public func revoke(name: String, now: Date = Date()) async throws {
        try await changes.apply(.tokenRevoke, [("token", name)]) {
            guard try await store.revokeToken(name: name, at: now) else {
                throw APITokenProblem("NAME: there is no live token named \(name) (see `kioskpad verifier token list`)")
            }
        }
    }
}
