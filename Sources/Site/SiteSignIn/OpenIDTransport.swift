import AsyncHTTPClient
import Foundation
import KioskPadEndpoints
import NIOCore
import NIOSSL
import SiteCore

/// How the site reaches the identity provider: a GET of a JSON document (discovery, JWKS)
/// and a form POST (the token endpoint), each answer's status and body.
public protocol OpenIDTransport: Sendable {
    func get(_ url: String) async throws -> (status: Int, body: [UInt8])
    func postForm(_ url: String, fields: [(String, String)], authorization: String?) async throws -> (status: Int, body: [UInt8])
}

/// The provider over HTTPS with AsyncHTTPClient. Every URL is checked first by the same rule
/// as webhooks (``WebhookTargetPolicy``, with `server.console.openid.allow_targets` and
/// `allow_http`): a provider inside the site's network is refused unless listed there, plain
/// `http://` unless on loopback or listed; the connection goes to the address that was
/// checked. No redirects; 10 s per request; at most 1 MB read. Names are looked up on the
/// `kp-dns` threads and connections run on SwiftNIO's event loops, never on Swift's
/// cooperative threads. `caFile` (PEM) replaces the system's roots for a private CA.
public struct OpenIDHTTPTransport: OpenIDTransport {
    let policy: WebhookTargetPolicy
    let caFile: String?
    let resolve: @Sendable (String) async throws -> [IPAddress]
    let timeout: TimeAmount

    public init(
        policy: WebhookTargetPolicy, caFile: String? = nil, timeout: TimeAmount = .seconds(10),
        resolve: @escaping @Sendable (String) async throws -> [IPAddress] = WebhookResolver.system
    ) {
        self.policy = policy
        self.caFile = caFile
        self.resolve = resolve
        self.timeout = timeout
    }

    public func get(_ url: String) async throws -> (status: Int, body: [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        return try await send(request, checking: url)
    }

    public func postForm(_ url: String, fields: [(String, String)], authorization: String?) async throws -> (status: Int, body: [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        request.body = .bytes(ByteBuffer(string: Self.formEncoded(fields)))
        return try await send(request, checking: url)
    }

    /// `application/x-www-form-urlencoded`: every byte but the unreserved ones escaped.
    public static func formEncoded(_ fields: [(String, String)]) -> String {
        fields.map { escaped($0.0) + "=" + escaped($0.1) }.joined(separator: "&")
    }

    static func escaped(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    private func send(_ request: HTTPClientRequest, checking url: String) async throws -> (status: Int, body: [UInt8]) {
        let target: WebhookTargetPolicy.Target
        switch await policy.check(url, resolve: resolve) {
        case .success(let checked): target = checked
        case .failure(let refusal): throw SignInRefusal.provider(refusal.description)
        }
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool.retryConnectionEstablishment = false
        if let address = target.addresses.first, IPAddress(literal: target.host) == nil {
            configuration.dnsOverride = [target.host: address.description]
        }
        if let caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(caFile)
            configuration.tlsConfiguration = tls
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let response = try await client.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: 1_048_576)
            try? await client.shutdown()
            return (Int(response.status.code), Array(buffer: body))
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
