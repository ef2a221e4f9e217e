import AsyncHTTPClient
import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadEndpoints
import Logging
import NIOCore
import Synchronization

/// How one post ended.
public enum PostOutcome: Sendable, Equatable {
    /// A 2xx answer.
    case delivered
    /// Another HTTP status.
    case answered(status: Int)
    /// 429 or 503 with `Retry-After` in seconds: the server asks for this long first.
    case busy(retryAfter: Duration)
    /// No answer (refused, reset, timed out).
    case failed
}

/// Posts JSON to one endpoint, signed per Standard Webhooks when a secret is set, with a
/// deadline; reports the status class. Used to forward one door's journal records. With
/// several addresses (`events.urls`) a post goes to the first in ``SiteAddresses`` order
/// that answers; a record keeps its `webhook-id` at each, so the site stores it once.
public final class SignedPoster: Sendable {
    /// Where records go, in the order tried.
    public let addresses: SiteAddresses
    /// The first address.
    public var url: String { addresses.urls[0] }
    private let terminalID: String
    private let secret: Mutex<WebhookSecret?>
    private let timeout: Duration
    private let client: HTTPClient
    private let logger: Logger

    /// `terminalID`: the door whose records it posts (its `kioskpad-terminal` header).
    public convenience init(
        url: String, terminalID: String, secret: WebhookSecret?, timeout: Duration = .seconds(5), allowInsecureHTTP: Bool = false, logger: Logger
    ) throws {
        try self.init(urls: [url], terminalID: terminalID, secret: secret, timeout: timeout, allowInsecureHTTP: allowInsecureHTTP, logger: logger)
    }

    /// `urls`: the addresses in order (the events key names each in an error).
    public init(
        urls: [String], terminalID: String, secret: WebhookSecret?, timeout: Duration = .seconds(5), allowInsecureHTTP: Bool = false, logger: Logger
    ) throws {
        for (index, url) in urls.enumerated() {
            if let problem = VerifierURL.problem(url, allowInsecureHTTP: allowInsecureHTTP) {
                throw KeyedError(key: urls.count == 1 ? "events.url" : "events.urls[\(index)]", message: problem)
            }
        }
        addresses = SiteAddresses(urls)
        self.terminalID = terminalID
        self.secret = Mutex(secret)
        self.timeout = timeout
        self.logger = logger
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        SiteAddresses.pool(&configuration, addresses: urls.count)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Posts `body` with `webhook-id: id`, to the next address when one gives no answer or
    /// a 503 and another is left.
    public func post(body: [UInt8], id: String) async -> PostOutcome {
        let request = SignedJSONRequest.make(url: url, body: body, id: id, terminal: terminalID, secret: secret.withLock { $0 })
        let response: HTTPClientResponse
        do {
            response = try await addresses.firstAnswer(request, client: client, timeout: timeout, sharing: false).response
        } catch {
            logger.debug("event post failed", metadata: ["error": "\(error)"])
            return .failed
        }
        _ = try? await response.body.collect(upTo: 16_384)
        let status = Int(response.status.code)
        if status == 429 || status == 503, let wait = response.headers.first(name: "retry-after").flatMap(SignedPoster.retryAfter) {
            return .busy(retryAfter: wait)
        }
        return (200..<300).contains(status) ? .delivered : .answered(status: status)
    }

    /// Signs with `next` from now on if it signed with `old` (an adopted door whose events are
    /// signed with its own secret, which the site just rotated); true when it did. Compared in
    /// constant time.
    @discardableResult
    public func replaceSecret(_ old: WebhookSecret, with next: WebhookSecret) -> Bool {
        secret.withLock { secret in
            guard let current = secret, ConstantTime.equal(current.key, old.key) else { return false }
            secret = next
            return true
        }
    }

    /// `Retry-After` as delta-seconds (0 to a day); nil for an HTTP-date or anything else.
    static func retryAfter(_ value: String) -> Duration? {
        guard let seconds = Int(value.trimmingCharacters(in: .whitespaces)), (0...86_400).contains(seconds) else { return nil }
        return .seconds(seconds)
    }

    public func shutdown() async {
        try? await client.shutdown()
    }
}
