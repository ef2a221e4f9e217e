import Foundation
import KioskPadConfig
import KioskPadEndpoints

/// `server.console:` the site console in the browser (`/console/`), off by default. It
/// listens apart from the doors (`listen`, default `127.0.0.1:8788`); off loopback it is
/// served only over its own TLS (`tls.cert_file`, `tls.key_file`) or behind a reverse
/// proxy on loopback (`trusted_proxy`), so its session cookie is never sent in clear.
public struct ConsoleSettings: Sendable, Equatable {
    public var enabled = false
    public var host = "127.0.0.1"
    public var port = 8788
    /// PEM certificate chain and key for HTTPS on the console's own listener.
    public var tlsCertFile: String?
    public var tlsKeyFile: String?
    /// The loopback address of a reverse proxy whose `X-Forwarded-Proto: https` is trusted.
    public var trustedProxy: String?
    /// A session ends after this long without a request (`session_idle_minutes`, default 30)...
    public var sessionIdle: TimeInterval = 1_800
    /// ...and this long after login whatever happens (`session_hours`, default 12).
    public var sessionLifetime: TimeInterval = 43_200
    /// A door not heard from for this long is `silent` on the Doors page (`silent_after_minutes`, default 15).
    public var silentAfter: TimeInterval = 900
    /// `openid:` sign-in through the organisation's identity provider (nil: local accounts only).
    public var openID: OpenIDSettings?

    public init() {}

    /// True when the console is served over HTTPS by itself.
    public var usesTLS: Bool { tlsCertFile != nil }
}

enum ConsoleSection {
    static func read(_ server: MappingReader, baseDirectory: String) -> ConsoleSettings {
        var settings = ConsoleSettings()
        guard server.has("console") else { return settings }
        let reader = server.child("console")
        settings.enabled = reader.bool("enabled", default: false)
        let listen = reader.string("listen", default: "127.0.0.1:8788")
        if let address = ConfigValues.hostAndPort(listen) {
            (settings.host, settings.port) = address
        } else {
            reader.log.report(reader.keyPath("listen"), "\(ConfigText.quoted(listen)) is not HOST:PORT (e.g. 127.0.0.1:8788)", at: reader.value("listen"))
        }
        if reader.has("tls") {
            let tls = reader.child("tls")
            let cert = tls.string("cert_file", default: "")
            let key = tls.string("key_file", default: "")
            if cert.isEmpty { tls.log.report(tls.keyPath("cert_file"), "is required with tls: the PEM certificate chain", at: tls.node) }
            if key.isEmpty { tls.log.report(tls.keyPath("key_file"), "is required with tls: the PEM private key", at: tls.node) }
            tls.finish()
            if !cert.isEmpty && !key.isEmpty {
                settings.tlsCertFile = ConfigValues.resolve(cert, baseDirectory)
                settings.tlsKeyFile = ConfigValues.resolve(key, baseDirectory)
            }
        }
        if reader.has("trusted_proxy") {
            let proxy = reader.string("trusted_proxy", default: "")
            if VerifierURL.isLoopback(proxy) && proxy.lowercased() != "localhost" {
                settings.trustedProxy = proxy.hasPrefix("[") ? String(proxy.dropFirst().dropLast()) : proxy
            } else {
                reader.log.report(
                    reader.keyPath("trusted_proxy"),
                    "\(ConfigText.quoted(proxy)) is not a loopback address: name the reverse proxy on this host as an IP literal, e.g. 127.0.0.1 or ::1",
                    at: reader.value("trusted_proxy"))
            }
        }
        let idle = reader.int("session_idle_minutes", default: 30, range: 1...1_440)
        let hours = reader.int("session_hours", default: 12, range: 1...168)
        let silent = reader.int("silent_after_minutes", default: 15, range: 1...10_080)
        settings.sessionIdle = TimeInterval(idle * 60)
        settings.sessionLifetime = TimeInterval(hours * 3_600)
        settings.silentAfter = TimeInterval(silent * 60)
        settings.openID = OpenIDSection.read(reader, baseDirectory: baseDirectory)
        if settings.enabled && !VerifierURL.isLoopback(settings.host) && !settings.usesTLS {
            reader.log.report(
                reader.keyPath("listen"),
                "\(ConfigText.quoted(listen)) is off loopback: the console's password and session would cross the network in clear; add tls: {cert_file, key_file}, or listen on 127.0.0.1 behind a reverse proxy named in trusted_proxy",
                at: reader.value("listen"))
        }
        if settings.trustedProxy != nil && !VerifierURL.isLoopback(settings.host) {
            reader.log.report(
                reader.keyPath("listen"), "must be a loopback address with trusted_proxy: the proxy on this host is what the network reaches",
                at: reader.value("listen"))
        }
        reader.finish()
        return settings
    }
}
