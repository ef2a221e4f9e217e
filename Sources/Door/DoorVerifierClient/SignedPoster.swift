import AsyncHTTPClient
import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadEndpoints
import Logging
import NIOCore

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
/// deadline; reports the status class. Used to forward one door's journal records.
public final class SignedPoster: Sendable {
    public let url: String
    private let terminalID: String
    private let secret: WebhookSecret?
    private let timeout: Duration
    private let client: HTTPClient
    private let logger: Logger

    /// `terminalID`: the door whose records it posts (its `kioskpad-terminal` header).
    public init(url: String, terminalID: String, secret: WebhookSecret?, timeout: Duration = .seconds(5), allowInsecureHTTP: Bool = false, logger: Logger)
        throws
    {
        if let problem = VerifierURL.problem(url, allowInsecureHTTP: allowInsecureHTTP) {
            throw KeyedError(key: "events.url", message: problem)
        }
        self.url = url
        self.terminalID = terminalID
        self.secret = secret
        self.timeout = timeout
        self.logger = logger
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
    }

    /// Posts `body` with `webhook-id: id`.
    public func post(body: [UInt8], id: String) async -> PostOutcome {
        let request = SignedJSONRequest.make(url: url, body: body, id: id, terminal: terminalID, secret: secret)
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(timeout.wholeNanoseconds))
            _ = try? await response.body.collect(upTo: 16_384)
            let status = Int(response.status.code)
            if status == 429 || status == 503, let wait = response.headers.first(name: "retry-after").flatMap(SignedPoster.retryAfter) {
                return .busy(retryAfter: wait)
            }
            return (200..<300).contains(status) ? .delivered : .answered(status: status)
        } catch {
            logger.debug("event post failed", metadata: ["error": "\(error)"])
            return .failed
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
