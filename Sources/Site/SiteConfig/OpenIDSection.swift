import Foundation
import KioskPadConfig
import KioskPadEndpoints
import Yams

/// `server.console.openid:` administrators sign in to the console through the organisation's
/// OpenID Connect provider (Authorization Code with PKCE), as well as with local accounts.
///
/// ```yaml
/// openid:
///   issuer: https://login.example.com/realms/site
///   client_id: kioskpad-console
///   client_secret_file: /etc/kioskpad/openid-client-secret
///   redirect_url: https://console.example.com/console/login/callback
///   roles_claim: groups
///   roles:
///     - {claim: kioskpad-owners, role: owner}
///     - {claim: reception, role: host}
///     - {claim: building-b-security, role: guard, door_groups: [building-b]}
/// ```
public struct OpenIDSettings: Sendable, Equatable {
    public var issuer = ""
    public var clientID = ""
    /// `client_secret_file`, `_env` or `_credential`; none: a public client (PKCE alone).
    public var clientSecret: SecretSource?
    public var redirectURL = ""
    public var scopes = ["openid", "profile", "email"]
    public var nameClaim = "preferred_username"
    public var rolesClaim = "groups"
    /// The role claim's values and what each gives, in order (the first held decides).
    public var roles: [Grant] = []
    /// `session_minutes` (default 15): a provider's session ends this long after sign-in.
    public var sessionLifetime: TimeInterval = 900
    /// `clock_skew_seconds` (default 60).
    public var clockSkew: TimeInterval = 60
    public var label = "Sign in with your organisation"
    /// A PEM file of the CA that signed the provider's certificate (else the system's roots).
    public var caFile: String?
    /// The provider inside the site's network (`allow_targets`: addresses, CIDR ranges or
    /// host names), which the site otherwise refuses to send to.
    public var allowTargets: [AllowedTarget] = []

    /// One line of `roles:`; `role` is checked against the site's roles when the server starts.
    public struct Grant: Sendable, Equatable {
        public var claim: String
        public var role: String
        public var doorGroups: [String]?
        /// Where it is, for an error (`server.console.openid.roles[2]`).
        public var path: String
    }

    public init() {}
}

enum OpenIDSection {
    static func read(_ console: MappingReader, baseDirectory: String) -> OpenIDSettings? {
        guard console.has("openid") else { return nil }
        let reader = console.child("openid")
        var settings = OpenIDSettings()
        settings.issuer = url(reader, "issuer", example: "https://login.example.com/realms/site")
        settings.clientID = reader.string("client_id", default: "")
        if settings.clientID.isEmpty { reader.log.report(reader.keyPath("client_id"), "is required: the console's client id at the provider", at: reader.node) }
        settings.clientSecret = ConfigValues.secretSource(reader, prefix: "client_secret", baseDirectory: baseDirectory)
        reader.declare("client_secret_file", "client_secret_env", "client_secret_credential")
        settings.redirectURL = url(reader, "redirect_url", example: "https://console.example.com/console/login/callback")
        if !settings.redirectURL.isEmpty, URLComponents(string: settings.redirectURL)?.path != "/console/login/callback" {
            reader.log.report(
                reader.keyPath("redirect_url"), "must end in /console/login/callback (the console's callback, registered at the provider as it is here)",
                at: reader.value("redirect_url"))
        }
        if reader.has("scopes") {
            settings.scopes = texts(reader, "scopes") ?? settings.scopes
            if !settings.scopes.contains("openid") { reader.log.report(reader.keyPath("scopes"), "must include openid", at: reader.value("scopes")) }
        }
        settings.nameClaim = reader.string("name_claim", default: "preferred_username")
        settings.rolesClaim = reader.string("roles_claim", default: "groups")
        settings.roles = grants(reader)
        settings.sessionLifetime = TimeInterval(reader.int("session_minutes", default: 15, range: 1...720) * 60)
        settings.clockSkew = TimeInterval(reader.int("clock_skew_seconds", default: 60, range: 0...300))
        settings.label = reader.string("label", default: settings.label)
        if reader.has("ca_file") { settings.caFile = ConfigValues.resolve(reader.string("ca_file", default: ""), baseDirectory) }
        settings.allowTargets = WebhooksSection.list(reader, "allow_targets")
        reader.finish()
        return settings
    }

    /// A required absolute http(s) URL without a query or fragment.
    static func url(_ reader: MappingReader, _ key: String, example: String) -> String {
        let text = reader.string(key, default: "")
        guard !text.isEmpty else {
            reader.log.report(reader.keyPath(key), "is required, e.g. \(example)", at: reader.node)
            return ""
        }
        guard let parts = URLComponents(string: text), ["https", "http"].contains(parts.scheme?.lowercased() ?? ""), parts.host?.isEmpty == false,
            parts.query == nil, parts.fragment == nil, parts.user == nil
        else {
            reader.log.report(
                reader.keyPath(key), "\(ConfigText.quoted(text)) is not an absolute https:// URL without a query, e.g. \(example)", at: reader.value(key))
            return ""
        }
        if parts.scheme?.lowercased() == "http", !VerifierURL.isLoopback(parts.host ?? "") {
            reader.log.report(
                reader.keyPath(key), "\(ConfigText.quoted(text)) is plain http:// off loopback: sign-ins would cross the network in clear; use https://",
                at: reader.value(key))
        }
        return text
    }

    /// A list of text at `key`, or nil (reported) when it is not one.
    static func texts(_ reader: MappingReader, _ key: String) -> [String]? {
        guard let node = reader.value(key) else { return nil }
        guard case .sequence(let sequence) = node, !sequence.isEmpty, sequence.allSatisfy({ $0.string?.isEmpty == false }) else {
            reader.log.report(reader.keyPath(key), "must be a list of words, e.g. [openid, profile, email]", at: node)
            return nil
        }
        return sequence.compactMap(\.string)
    }

    static func grants(_ reader: MappingReader) -> [OpenIDSettings.Grant] {
        let example = "[{claim: kioskpad-owners, role: owner}, {claim: reception, role: host}]"
        guard let node = reader.value("roles") else {
            reader.log.report(reader.keyPath("roles"), "is required: which values of the role claim give which role, e.g. \(example)", at: reader.node)
            return []
        }
        guard case .sequence(let sequence) = node, !sequence.isEmpty else {
            reader.log.report(reader.keyPath("roles"), "must be a list of {claim, role} (door_groups for a guard), e.g. \(example)", at: node)
            return []
        }
        var grants: [OpenIDSettings.Grant] = []
        for (index, item) in sequence.enumerated() {
            let path = reader.keyPath("roles") + "[\(index)]"
            let line = MappingReader(item, path: path, log: reader.log)
            let claim = line.string("claim", default: "")
            let role = line.string("role", default: "")
            if claim.isEmpty { line.log.report(line.keyPath("claim"), "is required: the role claim's value (a group's name or id)", at: item) }
            if role.isEmpty { line.log.report(line.keyPath("role"), "is required: owner, administrator, user-manager, host, guard or auditor", at: item) }
            var doorGroups: [String]?
            if line.has("door_groups") { doorGroups = texts(line, "door_groups") }
            line.finish()
            grants.append(OpenIDSettings.Grant(claim: claim, role: role, doorGroups: doorGroups, path: path))
        }
        return grants
    }
}
