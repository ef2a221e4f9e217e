import Foundation
import KeypadHAL
import KioskPadConfig
import KioskPadEndpoints

/// `verifier.offline`: whether a door keeps a signed credential replica and decides from it
/// when its HTTP verifier cannot answer.
public struct OfflineConfiguration: Equatable, Sendable {
    /// `off` (every verifier failure is `Verifier unavailable`) or `fallback`.
    public enum Mode: String, CaseIterable, Sendable {
        case off
        case fallback
    }

    public var mode: Mode
    /// The verifier's replica-signing key, `ed25519:BASE64` (`kioskpad verifier public-key`).
    public var publicKey: String
    /// The key an adopted door's site said it will sign with next (a rotation under way).
    public var nextPublicKey: String?
    /// Where replicas come from (default: `verifier.url`'s origin and `/v1/credentials`).
    public var url: String
    /// True when `url` was written in the file: replicas come from there only. False: from
    /// each of `verifier.urls` in turn, with the path `/v1/credentials`.
    public var urlGiven: Bool
    /// How often the replica is refreshed.
    public var syncInterval: Duration
    /// Whether the door holds the site's push channel (`POST /v1/watch`) and syncs as soon as
    /// the site says the version moved (`push`, default true).
    public var push: Bool
    /// The oldest confirmation a door still decides from.
    public var maxAge: Duration

    public init(
        mode: Mode, publicKey: String, url: String, urlGiven: Bool = false, syncInterval: Duration = .seconds(60), maxAge: Duration = .seconds(24 * 3600),
        push: Bool = true
    ) {
        self.push = push
        self.mode = mode
        self.publicKey = publicKey
        self.url = url
        self.urlGiven = urlGiven
        self.syncInterval = syncInterval
        self.maxAge = maxAge
    }

    /// The file in `state_dir` that holds the replica.
    public static let fileName = "replica.json"
    /// The site's replica endpoint beside `/verify`.
    public static let replicaPath = "/v1/credentials"
}

/// Reads `verifier.offline` (only with `kind: http`).
enum OfflineSection {
    static func read(_ verifier: MappingReader, verifierURL: String, allowInsecureHTTP: Bool) -> OfflineConfiguration? {
        guard verifier.has("offline") else { return nil }
        let reader = verifier.child("offline")
        defer { reader.finish() }
        let mode: OfflineConfiguration.Mode = reader.choice("mode", default: .off)
        reader.declare("public_key", "url", "sync_s", "max_age_h", "push")
        guard mode == .fallback else { return nil }
        let key = reader.string("public_key", default: "")
        if !reader.has("public_key") {
            reader.log.report(
                reader.keyPath("public_key"),
                "is required with mode: fallback; `kioskpad verifier public-key --config FILE` on the verifier prints it (ed25519:...)", at: reader.node)
        } else if !isPublicKey(key) {
            reader.log.report(
                reader.keyPath("public_key"), "must be ed25519: and 32 bytes in base64, as `kioskpad verifier public-key` prints it",
                at: reader.value("public_key"))
        }
        let url = reader.has("url") ? reader.string("url", default: "") : defaultURL(verifierURL)
        if reader.has("url"), let problem = VerifierURL.problem(url, allowInsecureHTTP: allowInsecureHTTP) {
            reader.log.report(reader.keyPath("url"), problem, at: reader.value("url"))
        }
        let sync = reader.seconds("sync_s", default: 60, range: 5...86_400)
        let hours = reader.int("max_age_h", default: 24, range: 1...720)
        let push = reader.bool("push", default: true)
        return OfflineConfiguration(
            mode: mode, publicKey: key, url: url, urlGiven: reader.has("url"), syncInterval: sync, maxAge: .seconds(hours * 3600), push: push)
    }

    /// `verifier.url`'s scheme, host and port with the path `/v1/credentials`.
    static func defaultURL(_ verifierURL: String) -> String {
        VerifierURL.replacingPath(verifierURL, with: OfflineConfiguration.replicaPath)
    }

    static func isPublicKey(_ text: String) -> Bool {
        guard text.hasPrefix("ed25519:"), let raw = Data(base64Encoded: String(text.dropFirst(8))) else { return false }
        return raw.count == 32
    }
}
