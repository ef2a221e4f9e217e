import Foundation
import KeypadHAL
import KioskPadConfig
import KioskPadEndpoints
import Yams

/// `verifier:` - required, so that no door ever falls back to a demo PIN by omission.
enum VerifierSection {
    enum Kind: String, CaseIterable {
        case local
        case http
        case demo
    }

    static func read(_ top: MappingReader, baseDirectory: String) -> VerifierConfiguration {
        guard top.has("verifier") else {
            top.log.report("verifier", "is required: kind: local (with users_file), kind: http (with url) or kind: demo (simulation only)", at: nil)
            _ = top.value("verifier")
            return .demo
        }
        let reader = top.child("verifier")
        defer { reader.finish() }
        let kind: Kind = reader.choice("kind", default: .local)
        // Settings of another kind are mistakes worth naming (not just "unknown key").
        for (other, keys) in [(Kind.http, httpKeys), (Kind.local, ["users_file"])] where other != kind {
            for key in keys where reader.has(key) {
                reader.log.report(
                    reader.keyPath(key), "is only used with kind: \(other.rawValue); this verifier is kind: \(kind.rawValue)", at: reader.value(key))
            }
        }
        switch kind {
        case .demo:
            return .demo
        case .local:
            guard reader.has("users_file") else {
                reader.log.report(reader.keyPath("users_file"), "is required with kind: local (a file of lines made by `kioskpad pin hash`)", at: reader.node)
                return .demo
            }
            return .local(usersFile: ConfigValues.resolve(reader.string("users_file", default: ""), baseDirectory))
        case .http:
            return .http(readHTTP(reader, baseDirectory: baseDirectory))
        }
    }

    /// The keys only `kind: http` reads.
    static let httpKeys = [
        "url", "urls", "allow_insecure_http", "timeout_s", "max_unlock_s", "secret", "secret_file", "secret_env", "secret_credential",
        "token", "token_file", "token_env", "token_credential", "ca_file", "client_cert", "client_key", "offline",
    ]

    static func readHTTP(_ reader: MappingReader, baseDirectory: String) -> HTTPVerifierConfiguration {
        let log = reader.log
        let allowInsecure = reader.bool("allow_insecure_http", default: false)
        let urls = SiteURLList.read(
            reader, allowInsecureHTTP: allowInsecure, fallback: "https://invalid.invalid/verify",
            required: "is required with kind: http (e.g. https://verifier.example/verify; urls: [...] for several instances)")
        let url = urls[0]
        var configuration = HTTPVerifierConfiguration(url: url, allowInsecureHTTP: allowInsecure)
        configuration.otherURLs = Array(urls.dropFirst())
        configuration.timeout = reader.seconds("timeout_s", default: 3, range: 0.2...30)
        configuration.maxUnlockSeconds = reader.int("max_unlock_s", default: 30, range: 1...300)
        configuration.secret = ConfigValues.secretSource(reader, prefix: "secret", baseDirectory: baseDirectory)
        configuration.token = ConfigValues.secretSource(reader, prefix: "token", baseDirectory: baseDirectory)
        configuration.caFile = reader.has("ca_file") ? ConfigValues.resolve(reader.string("ca_file", default: ""), baseDirectory) : nil
        let certificate = reader.has("client_cert") ? ConfigValues.resolve(reader.string("client_cert", default: ""), baseDirectory) : nil
        let key = reader.has("client_key") ? ConfigValues.resolve(reader.string("client_key", default: ""), baseDirectory) : nil
        if (certificate == nil) != (key == nil) {
            log.report(
                reader.keyPath(certificate == nil ? "client_cert" : "client_key"), "client_cert and client_key go together (mTLS); give both or neither",
                at: reader.node)
        }
        configuration.clientCertificate = certificate
        configuration.clientKey = key
        configuration.offline = OfflineSection.read(reader, verifierURL: url, allowInsecureHTTP: allowInsecure)
        if configuration.offline != nil, configuration.secret == nil {
            log.report(
                reader.keyPath("offline.mode"),
                "fallback needs verifier.secret_file, _env or _credential: the verifier gives a replica only to a signed request", at: reader.node)
        }
        return configuration
    }
}
