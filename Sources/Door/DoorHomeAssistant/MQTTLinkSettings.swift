/// What one connection to a broker needs: endpoint, TLS files, login, client id, keepalive
/// and the last will (published by the broker if the terminal vanishes).
public struct MQTTLinkSettings: Sendable {
    public var host: String
    public var port: Int
    public var tls: Bool
    /// nil with `tls`: the system's CAs.
    public var caFile: String?
    public var clientCertificate: String?
    public var clientKey: String?
    public var username: String?
    public var password: String?
    public var clientID: String
    public var keepalive: Int
    public var will: (topic: String, payload: String)?

    public init(
        host: String, port: Int, tls: Bool, caFile: String? = nil, clientCertificate: String? = nil, clientKey: String? = nil,
        username: String? = nil, password: String? = nil, clientID: String, keepalive: Int = 30,
        will: (topic: String, payload: String)? = nil
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.caFile = caFile
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
        self.username = username
        self.password = password
        self.clientID = clientID
        self.keepalive = keepalive
        self.will = will
    }

    /// `host:port`, for logs and `/healthz`.
    public var endpoint: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
