import AsyncHTTPClient
import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadEndpoints
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// Posts each completed entry to a verifier endpoint (docs/protocol.md) and fails
/// secure: anything but a 200 with a known decision, in time and within the size cap, is
/// ``AttemptOutcome/unavailable``. One connection pool is reused; each attempt has one
/// overall deadline; only failures before any response are retried (same `attempt_id`,
/// inside the deadline); requests are signed per Standard Webhooks when a secret is set.
/// With several site addresses (`verifier.urls`) each try goes to the next one in
/// ``SiteAddresses`` order, inside the same deadline.
public final class HTTPVerifier: Verifier {
    public struct Settings: Sendable {
        public var url: String
        /// More addresses of the same site (`verifier.urls` after the first), tried after `url` in order.
        public var otherURLs: [String]
        public var deadline: Duration
        public var secret: WebhookSecret?
        public var bearerToken: String?
        public var caFile: String?
        public var clientCertificate: String?
        public var clientKey: String?
        public var allowInsecureHTTP: Bool
        public var maxResponseBytes: Int
        public var retryDelay: Duration
        /// Whether a try that failed before any response (a refused or reset connection) is
        /// tried again within the deadline once every address was tried (true), or the attempt
        /// ends at once (false: a door with an offline fallback, which then decides itself).
        /// A site that does not answer at all still takes the deadline.
        public var retryRefusedConnections = true

        public init(
            url: String, deadline: Duration = .seconds(3), secret: WebhookSecret? = nil, bearerToken: String? = nil,
            caFile: String? = nil, clientCertificate: String? = nil, clientKey: String? = nil,
            allowInsecureHTTP: Bool = false, maxResponseBytes: Int = 16_384,
            retryDelay: Duration = .milliseconds(100), otherURLs: [String] = []
        ) {
            self.url = url
            self.otherURLs = otherURLs
            self.deadline = deadline
            self.secret = secret
            self.bearerToken = bearerToken
            self.caFile = caFile
            self.clientCertificate = clientCertificate
            self.clientKey = clientKey
            self.allowInsecureHTTP = allowInsecureHTTP
            self.maxResponseBytes = maxResponseBytes
            self.retryDelay = retryDelay
        }

        /// Every address, `url` first.
        public var urls: [String] { [url] + otherURLs }
    }

    public let settings: Settings
    /// The site's addresses and which of them failed lately (``Settings/urls``).
    public let addresses: SiteAddresses
    let client: HTTPClient
    let logger: Logger
    /// The secret requests are signed with now: `settings.secret` until a rotation replaces it.
    private let signing: Mutex<WebhookSecret?>

    public init(settings: Settings, logger: Logger = Logger(label: "kioskpad.verifier")) throws {
        for (index, url) in settings.urls.enumerated() {
            try HTTPVerifier.checkURL(
                url, allowInsecureHTTP: settings.allowInsecureHTTP, key: settings.otherURLs.isEmpty ? "verifier.url" : "verifier.urls[\(index)]")
        }
        addresses = SiteAddresses(settings.urls)
        client = try HTTPVerifier.makeClient(settings)
        self.settings = settings
        self.logger = logger
        signing = Mutex(settings.secret)
    }

    /// The secret requests are signed with now.
    public var secret: WebhookSecret? { signing.withLock { $0 } }

    /// Signs every request from now on with `secret` (an adopted door's rotated secret); a
    /// request already on its way keeps the secret it was signed with.
    public func replaceSecret(_ secret: WebhookSecret) {
        signing.withLock { $0 = secret }
    }

    /// A client with the settings' TLS trust and client certificate, no redirects and no
    /// decompression (the replica client uses the same).
    static func makeClient(_ settings: Settings) throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        do {
            if let caFile = settings.caFile {
                tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(caFile))]
            }
            if let certificate = settings.clientCertificate, let key = settings.clientKey {
                tls.certificateChain = try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) }
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
            }
        } catch {
            throw KeyedError(key: "verifier.ca_file", message: "cannot load TLS files: \(error)")
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(Int64(max(1, settings.deadline.wholeSeconds)))))
        configuration.decompression = .disabled
        SiteAddresses.pool(&configuration, addresses: 1 + settings.otherURLs.count, retryRefused: settings.retryRefusedConnections)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// `http://` only to loopback unless explicitly allowed; only http and https.
    public static func checkURL(_ text: String, allowInsecureHTTP: Bool, key: String = "verifier.url") throws {
        if let problem = VerifierURL.problem(text, allowInsecureHTTP: allowInsecureHTTP) {
            throw KeyedError(key: key, message: problem)
        }
    }

    public func verify(_ attempt: VerificationAttempt) async -> AttemptOutcome {
        switch await answer(attempt) {
        case .decided(let outcome): return outcome
        case .unreachable, .broken: return .unavailable
        }
    }

    /// The verifier's decision, or why there is none: ``VerifierAnswer/unreachable(_:)``
    /// when it could not answer (no connection, reset, deadline passed, 5xx), which a door
    /// with a credential replica may decide itself; ``VerifierAnswer/broken(_:)`` when it
    /// answered something else (4xx, a bad body), which nothing decides.
    public func answer(_ attempt: VerificationAttempt) async -> VerifierAnswer {
        var body = VerificationRequestBody.encode(attempt)
        defer { body.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        let id = attempt.attemptID.uuidString.lowercased()
        let request = SignedJSONRequest.make(
            url: settings.url, body: body, id: id, terminal: attempt.terminalID, secret: secret, bearerToken: settings.bearerToken)
        // One deadline for the whole attempt: connect, request, headers and body, retries
        // included. The race returns at the deadline whatever the server does; the exchange
        // is cancelled then, and its own NIO deadline stops it at the same time.
        let deadline = settings.deadline
        let nioDeadline = NIODeadline.now() + .nanoseconds(deadline.wholeNanoseconds)
        let result = await DeadlineRace.run(
            until: .now + deadline,
            timedOut: { Exchange.failed("no complete answer within the deadline (\(deadline.wholeMilliseconds) ms)", reachable: false) },
            { [self, request] in await exchange(request, id: id, deadline: nioDeadline) }
        )
        switch result {
        case .answer(let outcome): return .decided(outcome)
        case .failed(let reason, let reachable):
            unavailable(id, reason)
            return reachable ? .broken(reason) : .unreachable(reason)
        }
    }

    /// What one exchange ended with. Only the winner of the deadline race is logged, so an
    /// exchange abandoned at the deadline does not log a second time.
    private enum Exchange: Sendable {
        case answer(AttemptOutcome)
        /// `reachable`: the verifier answered, but not with a decision (4xx, a bad body).
        case failed(String, reachable: Bool)
    }

    /// Sends `request`, retrying only failures before any response, and reads the answer.
    /// Each try goes to the next address in ``SiteAddresses`` order; while addresses remain
    /// untried, a try has only its share of the deadline, and a 503 (the instance cannot
    /// decide now: it decided nothing) sends the attempt on to the next address.
    private func exchange(_ request: HTTPClientRequest, id: String, deadline: NIODeadline) async -> Exchange {
        let order = addresses.order()
        let share = NIOCore.TimeAmount.nanoseconds(addresses.firstTryBudget(of: settings.deadline).wholeNanoseconds)
        var request = request
        var tries = 0
        while true {
            let index = order[tries % order.count]
            tries += 1
            let untriedAfterThis = tries < order.count
            request.url = addresses.url(index)
            let tryDeadline = untriedAfterThis ? min(deadline, NIODeadline.now() + share) : deadline
            SiteAddresses.tellWait(&request, until: tryDeadline)
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, deadline: tryDeadline, logger: logger)
            } catch {
                addresses.failed(index)
                // No response yet: a retry with the same attempt_id is allowed inside the deadline,
                // at once to an address not tried yet, after the retry delay to one tried already.
                let wait = untriedAfterThis ? Duration.zero : settings.retryDelay
                let retryAt = NIODeadline.now() + .nanoseconds(wait.wholeNanoseconds)
                let retrying = untriedAfterThis || settings.retryRefusedConnections
                if retrying, !(error is CancellationError), !Task.isCancelled, retryAt < deadline {
                    logger.info(
                        "verifier request failed before a response; retrying",
                        metadata: ["attempt_id": "\(id)", "try": "\(tries)", "address": "\(index)", "error": "\(error)"])
                    if wait > .zero { try? await Task.sleep(for: wait) }
                    continue
                }
                return .failed("no response: \(error)", reachable: false)
            }
            if response.status == .serviceUnavailable, untriedAfterThis {
                addresses.failed(index)
                logger.info("verifier instance cannot decide now (503); asking the next", metadata: ["attempt_id": "\(id)", "address": "\(index)"])
                continue
            }
            // A response arrived: never retried, whatever it is.
            if response.status == .serviceUnavailable { addresses.failed(index) } else { addresses.answered(index) }
            // A retry refused as a replay (409): an earlier try reached the site (another
            // instance, or this one) and was perhaps decided, but its answer never came. That
            // is no answer for this door, as a reset is (the fault suite met it in a failover).
            if response.status == .conflict, tries > 1 {
                return .failed("status 409 to a retry: an earlier try reached the site but its answer did not come", reachable: false)
            }
            guard response.status == .ok else {
                return .failed("status \(response.status.code)", reachable: response.status.code < 500)
            }
            do {
                let buffer = try await response.body.collect(upTo: settings.maxResponseBytes)
                return .answer(try VerificationResponseBody.decode(Array(buffer: buffer)))
            } catch let error as VerificationResponseBody.Invalid {
                return .failed(error.description, reachable: true)
            } catch {
                return .failed("bad response body: \(error)", reachable: true)
            }
        }
    }

    private func unavailable(_ id: String, _ reason: String) {
        logger.warning("verifier unavailable", metadata: ["attempt_id": "\(id)", "reason": "\(reason)"])
    }

    public func shutdown() async {
        try? await client.shutdown()
    }
}

/// What one `/verify` exchange gave: a decision, or why there is none.
public enum VerifierAnswer: Sendable, Equatable {
    case decided(AttemptOutcome)
    /// No answer at all: refused, reset, the deadline passed, or a 5xx.
    case unreachable(String)
    /// An answer that is not a decision (4xx, a bad or oversized body).
    case broken(String)
}
