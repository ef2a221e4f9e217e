import AsyncHTTPClient
import Crypto
import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadEndpoints
import NIOCore

/// An unpaired door's side of adoption (docs/architecture.md, "Adopting a door"): announces
/// its public key to the site, polls for the sealed delivery, and reports whether it opened
/// it (signed with the announcement's Ed25519 key; `opened` also with the secret the delivery
/// carried).
public final class PairingClient: Sendable {
    /// The site's answer to an announcement.
    public struct Announcement: Sendable, Equatable {
        public let id: String
        public let nonce: Data
        public let pollInterval: Duration
    }

    /// What a poll found.
    public enum Poll: Sendable, Equatable {
        case waiting
        case delivered(PairingSeal.Sealed)
        case paired
        /// The announcement is gone (ran out, or too many deliveries did not open).
        case gone
    }

    /// A refusal or an unreachable site; the text says which, never a code.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// The site's first address (what `site.json` names).
    public var site: String { addresses.urls[0] }
    /// Every address given, without a trailing slash, in order.
    public var sites: [String] { addresses.urls }
    /// The site's addresses (its instances share the announcements), asked in order.
    private let addresses: SiteAddresses
    private let client: HTTPClient
    private let timeout: Duration

    /// `sites`: the site's base URLs (`https://site.example:8787`), first preferred; plain
    /// `http://` only to loopback unless allowed, as for `verifier.url`.
    public init(sites: [String], allowInsecureHTTP: Bool = false, timeout: Duration = .seconds(10)) throws {
        precondition(!sites.isEmpty, "a site has at least one address")
        let trimmed = sites.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        for site in trimmed {
            if let problem = VerifierURL.problem(site + "/v1/pair", allowInsecureHTTP: allowInsecureHTTP) {
                throw KeyedError(key: "--site", message: problem)
            }
        }
        addresses = SiteAddresses(trimmed)
        self.timeout = timeout
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        SiteAddresses.pool(&configuration, addresses: sites.count)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// One address: `kioskpad pair --site URL`.
    public convenience init(site: String, allowInsecureHTTP: Bool = false, timeout: Duration = .seconds(10)) throws {
        try self.init(sites: [site], allowInsecureHTTP: allowInsecureHTTP, timeout: timeout)
    }

    public func shutdown() async {
        try? await client.shutdown()
    }

    /// Sends `request` to `path` at the site's addresses in order (the next one when one
    /// gives no answer or a 503).
    private func send(_ request: HTTPClientRequest, path: String) async throws -> (status: Int, object: [String: Any]) {
        do {
            let answer = try await addresses.firstAnswer(request, path: path, client: client, timeout: timeout, sharing: false)
            let body = try await answer.response.body.collect(upTo: 65_536)
            let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
            return (Int(answer.response.status.code), object)
        } catch {
            throw Failure(description: "\(site): no answer (\(error))")
        }
    }

    private func refused(_ answer: (status: Int, object: [String: Any])) -> Failure {
        Failure(description: "\(site) answered \(answer.status): \(answer.object["error"] as? String ?? "no reason given")")
    }

    /// Announces `doorKey` (raw X25519) and the door's half of the pairing exchange with a
    /// one-line `hardware` summary.
    public func announce(doorKey: Data, half: PairingExchange.DoorHalf, resultKey: Data, hardware: String) async throws -> Announcement {
        var request = HTTPClientRequest(url: site + "/v1/pair")
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        let body = try JSONSerialization.data(withJSONObject: [
            "door_key": doorKey.base64EncodedString(), "pake_message": half.message.base64EncodedString(),
            "pake_sid": half.sid.base64EncodedString(), "result_key": resultKey.base64EncodedString(), "hardware": hardware,
        ])
        request.body = .bytes(ByteBuffer(bytes: body))
        let answer = try await send(request, path: "/v1/pair")
        guard answer.status == 201, let id = answer.object["id"] as? String,
            let nonce = (answer.object["nonce"] as? String).flatMap({ Data(base64Encoded: $0) })
        else { throw refused(answer) }
        let seconds = answer.object["poll_s"] as? Int ?? 2
        return Announcement(id: id, nonce: nonce, pollInterval: .seconds(max(1, min(seconds, 30))))
    }

    /// Asks what became of announcement `id`.
    public func poll(_ id: String) async throws -> Poll {
        let path = "/v1/pair/" + id
        let answer = try await send(HTTPClientRequest(url: site + path), path: path)
        if answer.status == 404 { return .gone }
        guard answer.status == 200 else { throw refused(answer) }
        switch answer.object["state"] as? String {
        case "delivered":
            guard let sealed = answer.object["sealed"] as? [String: Any], let message = sealed["pake_message"] as? String,
                let key = sealed["encapsulated_key"] as? String, let ciphertext = sealed["ciphertext"] as? String
            else { throw refused(answer) }
            return .delivered(PairingSeal.Sealed(siteMessage: message, encapsulatedKey: key, ciphertext: ciphertext))
        case "paired": return .paired
        default: return .waiting
        }
    }

    /// Reports the delivery of `id` opened (signed as door `terminal` with `secret`), or not;
    /// either signed with the announcement's `resultKey`.
    public func report(_ id: String, opened: (terminal: String, secret: WebhookSecret)?, resultKey: Curve25519.Signing.PrivateKey) async throws {
        let result: PairingResultSignature.Result = opened == nil ? .notOpened : .opened
        let signature = try PairingResultSignature.sign(result, announcement: id, key: resultKey)
        let body = Array(#"{"result":"\#(result.rawValue)","result_signature":"\#(signature)"}"#.utf8)
        let path = "/v1/pair/\(id)/result"
        var request: HTTPClientRequest
        if let opened {
            request = SignedJSONRequest.make(url: site + path, body: body, id: UUID().uuidString, terminal: opened.terminal, secret: opened.secret)
        } else {
            request = HTTPClientRequest(url: site + path)
            request.method = .POST
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let answer = try await send(request, path: path)
        guard answer.status == 200 else { throw refused(answer) }
    }
}
