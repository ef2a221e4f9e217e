import AsyncHTTPClient
import Foundation
import KioskPadAccess
import KioskPadCore
import Logging
import NIOCore
import Synchronization

/// Asks the verifier for this door's credential replica (`POST /v1/credentials`, signed with
/// the door's secret as `/verify` is): `{terminal_id, have_version, have_mark}` in, a ``SignedReplica``
/// out. It only fetches; whoever holds the verifier's public key checks what came. With several
/// site addresses it asks them in ``SiteAddresses`` order, as `/verify` does.
public final class ReplicaSyncClient: Sendable {
    /// Why a fetch gave no replica (no answer, a status other than 200, a body too big).
    public struct FetchError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Where replicas come from, in the order tried (health memory of its own).
    public let addresses: SiteAddresses
    /// The first address (for messages).
    public var url: String { addresses.urls[0] }
    private let terminalID: String
    private let secret: Mutex<WebhookSecret>
    private let timeout: Duration
    private let client: HTTPClient
    /// A 10,000-user replica is about 2 MB; this leaves room and still bounds memory.
    public static let maxReplicaBytes = 32 << 20

    /// `settings` are the door's `/verify` settings (TLS trust, client certificate,
    /// insecure-HTTP permission); `urls` are where replicas come from, in order.
    public init(urls: [String], terminalID: String, secret: WebhookSecret, settings: HTTPVerifier.Settings, timeout: Duration = .seconds(30)) throws {
        for url in urls {
            do {
                try HTTPVerifier.checkURL(url, allowInsecureHTTP: settings.allowInsecureHTTP)
            } catch let error as KeyedError {
                throw KeyedError(key: "verifier.offline.url", message: error.message)
            }
        }
        addresses = SiteAddresses(urls)
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

    /// The verifier's answer to a door holding version `have` (0 for none), from the first
    /// address that answers (a 503 counts as no answer while another address is left). With
    /// `mark`, the mark of the version held, the answer may be a delta from it.
    public func fetch(have: Int64, mark: String? = nil) async throws -> SignedReplica {
        let markField = mark.map { ",\"have_mark\":\(VerificationRequestBody.jsonString($0))" } ?? ""
        let body = Array("{\"have_version\":\(have)\(markField),\"terminal_id\":\(VerificationRequestBody.jsonString(terminalID))}".utf8)
        let request = SignedJSONRequest.make(
            url: url, body: body, id: "replica-" + UUID().uuidString.lowercased(), terminal: terminalID, secret: secret.withLock { $0 })
        let answer: (response: HTTPClientResponse, url: String)
        do {
            // A silent first address (its packets dropped) costs its share of the timeout, not all of it.
            answer = try await addresses.firstAnswer(request, client: client, timeout: timeout, sharing: false, shortFirstTries: true)
        } catch let error as HTTPVerifier.NoAddressAnswered {
            throw FetchError(description: error.description)
        }
        return try await replica(from: answer.response, address: answer.url)
    }

    /// Why the push channel gave no version: the site has none (404: an older site; the door
    /// polls), or no address answered as it should.
    public enum WatchError: Error, CustomStringConvertible {
        case notOffered(String)
        case failed(String)
        /// Refused (401) as a retired door, with the site's signed word of it (still to be
        /// checked against the replica key and the request's nonce).
        case retired(String, SignedDoorCommand)

        public var description: String {
            switch self {
            case .notOffered(let why), .failed(let why), .retired(let why, _): why
            }
        }
    }

    /// What the push channel answered: the site's replica version (`have` when nothing
    /// changed), the remote commands it sent, still to be checked, and whether the site asks
    /// the door to check in now (`check_in`: settings or a rotation of its secret wait).
    public struct WatchAnswer: Sendable, Equatable {
        public let version: Int64
        public let commands: [SignedDoorCommand]
        public let checkIn: Bool

        public init(version: Int64, commands: [SignedDoorCommand] = [], checkIn: Bool = false) {
            self.version = version
            self.commands = commands
            self.checkIn = checkIn
        }
    }

    /// The push channel (`POST /v1/watch` beside each replica address): held by the site until
    /// the replica's version passes `have` or `wait` runs out; the version it then has (`have`
    /// when nothing changed).
    public func watch(have: Int64, wait: Duration) async throws -> Int64 {
        try await watch(have: have, commands: nil, wait: wait).version
    }

    /// As ``watch(have:wait:)``; with `commands` (the last remote command taken and this
    /// request's new nonce) the site also answers at once with the remote commands for this
    /// door numbered above it. With `settings` (an adopted door's newest settings version
    /// known) the site answers at once with `check_in` when the door should check in.
    public func watch(have: Int64, commands: (after: Int64, nonce: String)?, settings: Int64? = nil, wait: Duration) async throws -> WatchAnswer {
        let seconds = max(Int64(1), min(Int64(55), Int64(wait.wholeSeconds)))
        var text = "{\"have_version\":\(have),\"terminal_id\":\(VerificationRequestBody.jsonString(terminalID)),\"wait_s\":\(seconds)"
        if let commands {
            text += ",\"have_command\":\(commands.after),\"nonce\":\(VerificationRequestBody.jsonString(commands.nonce))"
        }
        if let settings { text += ",\"have_settings\":\(settings)" }
        let body = Array((text + "}").utf8)
        let request = SignedJSONRequest.make(
            url: url, body: body, id: "watch-" + UUID().uuidString.lowercased(), terminal: terminalID, secret: secret.withLock { $0 })
        let answer: (response: HTTPClientResponse, url: String)
        do {
            answer = try await addresses.firstAnswer(request, path: Self.watchPath, client: client, timeout: .seconds(seconds + 10), sharing: false)
        } catch let error as HTTPVerifier.NoAddressAnswered {
            throw WatchError.failed(error.description)
        }
        let bytes = Array(buffer: try await answer.response.body.collect(upTo: 65_536))
        switch answer.response.status {
        case .ok:
            guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any],
                let version = (object["replica_version"] as? NSNumber)?.int64Value
            else { throw WatchError.failed("\(answer.url) answered 200 without replica_version") }
            // A command that is not even shaped as one is dropped here; the rest are checked by the caller.
            let signed = (object["commands"] as? [Any] ?? []).compactMap { try? SignedDoorCommand(jsonObject: $0) }
            return WatchAnswer(version: version, commands: signed, checkIn: object["check_in"] as? Bool == true)
        case .unauthorized:
            let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
            let said = "\(answer.url) answered 401" + ((object?["error"] as? String).map { ": \($0)" } ?? "")
            if let statement = try? SignedDoorCommand(jsonObject: object?["retirement"]) { throw WatchError.retired(said, statement) }
            throw WatchError.failed(said)
        case .notFound, .methodNotAllowed:
            throw WatchError.notOffered("\(answer.url) has no push channel (\(answer.response.status.code)): the door syncs every sync_s")
        default:
            throw WatchError.failed("\(answer.url) answered \(answer.response.status.code)")
        }
    }

    /// The push channel's path beside `/verify` and `/v1/credentials`.
    public static let watchPath = "/v1/watch"

    /// The signed replica in `response`, or why there is none.
    private func replica(from response: HTTPClientResponse, address url: String) async throws -> SignedReplica {
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
