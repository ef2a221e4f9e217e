import Foundation

/// Who makes an administrator's change: a kind of actor (what roles will be granted to) and
/// the name and source its audit record carries: the console's signed-in administrator from
/// their address, an API token from its client's, the command line's Unix user (`cli:alice`,
/// source `cli`), or the site itself.
public struct Administrator: Sendable, Equatable {
    /// How the actor reached the site.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// `kioskpad verifier ...` on the site's host, as a Unix user.
        case commandLine
        /// An administrator signed in to the console.
        case console
        /// A management API token (`/api/v1/`).
        case apiToken
        /// The site itself (a subscription disabled after its receiver failed too long).
        case site
    }

    public let kind: Kind
    /// The audit's `admin` field.
    public let name: String
    /// The audit's `source` field: the client's address, `cli` or `site`.
    public let source: String

    /// The command line's user: the one who ran `sudo` when there is one, else `USER`.
    public static func commandLine(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Administrator {
        Administrator(kind: .commandLine, name: "cli:" + (environment["SUDO_USER"] ?? environment["USER"] ?? "root"), source: "cli")
    }

    /// The console's administrator `name`, signed in from `address`.
    public static func console(_ name: String, from address: String) -> Administrator {
        Administrator(kind: .console, name: name, source: address)
    }

    /// The API token `name` (audited as `token:NAME`), used from `address`.
    public static func apiToken(_ name: String, from address: String) -> Administrator {
        Administrator(kind: .apiToken, name: "token:" + name, source: address)
    }

    /// The site's own changes (admin and source `site`).
    public static let site = Administrator(kind: .site, name: "site", source: "site")
}
