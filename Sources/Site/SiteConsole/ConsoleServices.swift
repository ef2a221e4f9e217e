import Foundation
import KioskPadAccess
import SiteCore
import SiteSignIn

/// What the site console reads and changes: the verifier's database (users, codes, rules,
/// audit, events) and the console's own tables, plus the settings a user edit needs.
public struct ConsoleServices: Sendable {
    public let administration: any VerifierAdministration
    public let console: any ConsoleStore
    public let store: any VerifierStore
    /// The key of users' lookup tags (`server.lookup_key_*`), for PINs added here.
    public let lookupKey: LookupKey?
    /// Digits of a one-time code issued here (`server.code_length`).
    public let codeLength: Int
    /// The console's clock (tests move it).
    public let now: @Sendable () -> Date
    /// Where a PIN or card set here gets its replica tag (doors' offline lookup).
    public let replica: (any ReplicaKeeping)?
    /// The management API's tokens (nil: no `/api/v1/`).
    public let tokens: (any APITokenStore)?
    /// Webhook subscriptions and deliveries (nil: none on this console or API).
    public let webhooks: (any WebhookStore)?
    /// How long a visitor pass issued here may last, and how many may be live
    /// (`server.visitor_pass_max_days`, `_max_live_per_host`, `_max_live`).
    public var visitorPassLimits = VisitorPassLimits()
    /// The most uses of a pass a token without the users scope issues (`server.visitor_pass_max_uses`).
    public var visitorPassMaxUses = 20
    /// Where a webhook added here may go (`server.webhooks`; default: public addresses only).
    public var webhookTargets = WebhookTargets()
    /// Sign-in through the organisation's identity provider (`server.console.openid`; nil: local accounts only).
    public var signIn: OpenIDSignIn?
    /// Tells the doors' push channel at once that a remote command was stored here (the
    /// server's ``ReplicaVersionWatch/poke()``); without it the channel's own read finds it.
    public var pokeDoors: @Sendable () -> Void = {}

    /// Remote unlock and lock, as every front end makes them.
    public func remoteCommands(_ changes: AdministratorChanges) -> RemoteDoorCommands {
        RemoteDoorCommands(administration: administration, changes: changes, poke: pokeDoors)
    }

    public init(
        administration: any VerifierAdministration, console: any ConsoleStore, store: any VerifierStore, lookupKey: LookupKey?,
        codeLength: Int, now: @escaping @Sendable () -> Date = { Date() }, replica: (any ReplicaKeeping)? = nil, tokens: (any APITokenStore)? = nil,
        webhooks: (any WebhookStore)? = nil
    ) {
        self.webhooks = webhooks
        self.replica = replica
        self.tokens = tokens
        self.administration = administration
        self.console = console
        self.store = store
        self.lookupKey = lookupKey
        self.codeLength = codeLength
        self.now = now
    }
}

/// How the console guards itself: cookies, sessions, login throttling, where it is served.
public struct ConsoleOptions: Sendable {
    /// The console is served over its own TLS: every cookie is `Secure`.
    public var tls = false
    /// A reverse proxy on loopback whose `X-Forwarded-Proto: https` is trusted.
    public var trustedProxy: String?
    public var sessionIdle: TimeInterval = 1_800
    public var sessionLifetime: TimeInterval = 43_200
    /// A door not heard from for this long is shown `silent`.
    public var silentAfter: TimeInterval = 900
    /// Failed logins in a row that lock an administrator out, and for how long.
    public var loginFailureLimit = 5
    public var lockoutSeconds: TimeInterval = 900
    /// Failed logins from one address within `sourceWindow` before it is refused (429).
    public var sourceFailureLimit = 10
    public var sourceWindow: TimeInterval = 600

    public init() {}
}
