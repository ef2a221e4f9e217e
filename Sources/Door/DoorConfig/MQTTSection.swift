import Foundation
import KeypadHAL
import KioskPadConfig
import KioskPadEndpoints

/// `mqtt:` - a terminal's link to an MQTT broker for Home Assistant: availability, discovery,
/// door and access events, and (off by default) remote unlock with a code.
public struct MQTTConfiguration: Equatable, Sendable {
    /// `mqtt://` (loopback only, unless `allow_insecure`) or `mqtts://`.
    public var url: String
    public var host: String
    public var port: Int
    public var tls: Bool
    public var allowInsecure: Bool
    /// `ca_file`: the CA that signed the broker's certificate; nil: the system's CAs.
    public var caFile: String?
    public var clientCertificate: String?
    public var clientKey: String?
    public var username: String?
    /// `password_file`, `password_env` or `password_credential`.
    public var password: SecretSource?
    public var clientID: String
    /// `<base_topic>/status`, `/event`, `/door`, ...
    public var baseTopic: String
    /// Home Assistant's discovery prefix.
    public var discoveryPrefix: String
    public var keepalive: Int
    /// `remote_unlock`: the `lock` entity opens the door with a code checked like a typed PIN.
    public var remoteUnlock: Bool

    public init(
        url: String, host: String, port: Int, tls: Bool, allowInsecure: Bool = false, caFile: String? = nil,
        clientCertificate: String? = nil, clientKey: String? = nil, username: String? = nil, password: SecretSource? = nil,
        clientID: String, baseTopic: String, discoveryPrefix: String = "homeassistant", keepalive: Int = 30, remoteUnlock: Bool = false
    ) {
        self.url = url
        self.host = host
        self.port = port
        self.tls = tls
        self.allowInsecure = allowInsecure
        self.caFile = caFile
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
        self.username = username
        self.password = password
        self.clientID = clientID
        self.baseTopic = baseTopic
        self.discoveryPrefix = discoveryPrefix
        self.keepalive = keepalive
        self.remoteUnlock = remoteUnlock
    }
}

/// Reads `mqtt:`.
enum MQTTSection {
    static func read(_ top: MappingReader, terminalID: String, baseDirectory: String) -> MQTTConfiguration? {
        guard top.has("mqtt") else { return nil }
        let reader = top.child("mqtt")
        defer { reader.finish() }
        // `enabled: false` keeps the broker's settings (still checked) but connects to none (a site may set it).
        let enabled = reader.bool("enabled", default: true)
        let log = reader.log
        if !reader.has("url") {
            log.report(reader.keyPath("url"), "is required: the broker, mqtts://HOST:8883 (or mqtt://127.0.0.1:1883 on this machine)", at: reader.node)
        }
        let url = reader.string("url", default: "mqtts://invalid.invalid:8883")
        let allowInsecure = reader.bool("allow_insecure", default: false)
        var (host, port, tls) = ("invalid.invalid", 8883, true)
        if let parsed = endpoint(url) {
            (host, port, tls) = parsed
            if !tls && !allowInsecure && !VerifierURL.isLoopback(host) {
                log.report(
                    reader.keyPath("url"),
                    "plain mqtt:// to \(host) would send the broker password (and remote-unlock codes) unencrypted; use mqtts:// or set mqtt.allow_insecure: true",
                    at: reader.value("url"))
            }
        } else if reader.has("url") {
            log.report(reader.keyPath("url"), "\(ConfigText.quoted(url)) is not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]", at: reader.value("url"))
        }
        let caFile = path(reader, "ca_file", baseDirectory)
        let certificate = path(reader, "client_cert_file", baseDirectory)
        let key = path(reader, "client_key_file", baseDirectory)
        if (certificate == nil) != (key == nil) {
            log.report(
                reader.keyPath(certificate == nil ? "client_cert_file" : "client_key_file"),
                "client_cert_file and client_key_file go together; give both or neither", at: reader.node)
        }
        if !tls {
            for name in ["ca_file", "client_cert_file", "client_key_file"] where reader.has(name) {
                log.report(reader.keyPath(name), "is only used with mqtts://", at: reader.value(name))
            }
        }
        let username = reader.has("username") ? reader.string("username", default: "") : nil
        let password = ConfigValues.secretSource(reader, prefix: "password", baseDirectory: baseDirectory)
        if password != nil && username == nil {
            log.report(reader.keyPath("username"), "is required with a password", at: reader.node)
        }
        let clientID = reader.string("client_id", default: "kioskpad-\(terminalID)")
        if clientID.isEmpty || clientID.utf8.count > 128 {
            log.report(reader.keyPath("client_id"), "must be 1-128 bytes", at: reader.value("client_id"))
        }
        let baseTopic = reader.string("base_topic", default: "kioskpad/\(terminalID)")
        if let problem = topicProblem(baseTopic) {
            log.report(reader.keyPath("base_topic"), problem, at: reader.value("base_topic"))
        }
        let prefix = reader.string("discovery_prefix", default: "homeassistant")
        if let problem = topicProblem(prefix) {
            log.report(reader.keyPath("discovery_prefix"), problem, at: reader.value("discovery_prefix"))
        }
        let keepalive = reader.int("keepalive_s", default: 30, range: 5...3600)
        let remoteUnlock = reader.bool("remote_unlock", default: false)
        if remoteUnlock && !tls && !VerifierURL.isLoopback(host) {
            log.report(
                reader.keyPath("remote_unlock"), "needs mqtts:// or a broker on this machine: the unlock code travels in the command",
                at: reader.value("remote_unlock"))
        }
        guard enabled else { return nil }
        return MQTTConfiguration(
            url: url, host: host, port: port, tls: tls, allowInsecure: allowInsecure, caFile: caFile,
            clientCertificate: certificate, clientKey: key, username: username, password: password, clientID: clientID,
            baseTopic: baseTopic, discoveryPrefix: prefix, keepalive: keepalive, remoteUnlock: remoteUnlock)
    }

    /// Host, port (default 1883 or 8883) and whether TLS is used, or nil for another form.
    static func endpoint(_ url: String) -> (host: String, port: Int, tls: Bool)? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            scheme == "mqtt" || scheme == "mqtts", let host = parts.host, !host.isEmpty,
            parts.path.isEmpty || parts.path == "/", parts.query == nil, parts.user == nil
        else { return nil }
        let tls = scheme == "mqtts"
        let port = parts.port ?? (tls ? 8883 : 1883)
        guard (1...65535).contains(port) else { return nil }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return (bare, port, tls)
    }

    /// Why `topic` cannot be a topic prefix, or nil.
    static func topicProblem(_ topic: String) -> String? {
        if topic.isEmpty || topic.hasPrefix("/") || topic.hasSuffix("/") {
            return "\(ConfigText.quoted(topic)) must be a topic like kioskpad/door-1 (no leading or trailing /)"
        }
        if topic.contains(where: { $0 == "#" || $0 == "+" || $0 == "\0" }) {
            return "\(ConfigText.quoted(topic)) must not contain the wildcards # or +"
        }
        return nil
    }

    static func path(_ reader: MappingReader, _ key: String, _ baseDirectory: String) -> String? {
        reader.has(key) ? ConfigValues.resolve(reader.string(key, default: ""), baseDirectory) : nil
    }
}
