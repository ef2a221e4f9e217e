import AsyncHTTPClient
import Foundation
import KioskPadAccess
import KioskPadCore
import Logging
import NIOCore
import Synchronization

/// Asks the verifier for this door's credential replica (`POST /v1/credentials`, signed with
/// the door's secret as `/verify` is): `{terminal_id, have_version}` in, a ``SignedReplica``
/// out. It only fetches; whoever holds the verifier's public key checks what came.
public final class ReplicaSyncClient: Sendable {
    /// Why a fetch gave no replica (no answer, a status other than 200, a body too big).
    public struct FetchError: Error, CustomStringConvertible {
        public let description: String
    }

    public let url: String
    private let terminalID: String
    private let secret: Mutex<WebhookSecret>
    private let timeout: Duration
    private let client: HTTPClient
    /// A 10,000-user replica is about 2 MB; this leaves room and still bounds memory.
    public static let maxReplicaBytes = 32 << 20

    /// `settings` are the door's `/verify` settings (TLS trust, client certificate,
    /// insecure-HTTP permission); `url` is where replicas come from.
    public init(url: String, terminalID: String, secret: WebhookSecret, settings: HTTPVerifier.Settings, timeout: Duration = .seconds(30)) throws {
        do {
            try HTTPVerifier.checkURL(url, allowInsecureHTTP: settings.allowInsecureHTTP)
        } catch let error as KeyedError {
            throw KeyedError(key: "verifier.offline.url", message: error.message)
        }
        self.url = url
        self.terminalID = terminalID
        self.secret = Mutex(secret)
        self.timeout = timeout
        client = try HTTPVerifier.makeClient(settings)
    }

    /// Signs every request from now on with `secret` (an adopted door's rotated secret, as
    /// ``HTTPVerifier/replaceSecret(_:)``).
    public func replaceSecret(_ secret: WebhookSecret) {
        self.secret.withLock { $0 = secret }
    }

    /// The verifier's answer to a door holding version `have` (0 for none).
    public func fetch(have: Int64) async throws -> SignedReplica {
        let body = Array("{\"have_version\":\(have),\"terminal_id\":\(VerificationRequestBody.jsonString(terminalID))}".utf8)
        let request = SignedJSONRequest.make(
            url: url, body: body, id: "replica-" + UUID().uuidString.lowercased(), terminal: terminalID, secret: secret.withLock { $0 })
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .nanoseconds(timeout.wholeNanoseconds))
        } catch {
            throw FetchError(description: "no answer from \(url): \(error)")
        }
        let bytes: [UInt8]
        do {
            bytes = Array(buffer: try await response.body.collect(upTo: Self.maxReplicaBytes))
        } catch {
            throw FetchError(description: "the answer from \(url) was cut off or over \(Self.maxReplicaBytes >> 20) MB: \(error)")
        }
        guard response.status == .ok else {
            let said = ((try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any])?["error"] as? String
            throw FetchError(description: "\(url) answered \(response.status.code)" + (said.map { ": \($0)" } ?? ""))
        }
        do {
            return try SignedReplica(json: bytes)
        } catch {
            throw FetchError(description: "\(url) sent no signed replica: \(error)")
        }
    }

    public func shutdown() async {
        try? await client.shutdown()
    }
}
