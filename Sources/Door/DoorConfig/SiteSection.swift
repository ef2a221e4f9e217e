import Foundation
import KioskPadConfig
import KioskPadCore
import KioskPadEndpoints
import Yams

/// A door that names only its site (`site: https://...`, no `verifier:`) and is adopted from
/// it: unpaired until the site has sealed it a secret (`kioskpad pair`, or `kioskpad run`
/// showing its pairing code), then asking that site, signed with that secret. `sites`: the
/// site's addresses in order (`site:` may list up to 4 instances of one site), first preferred.
public enum DoorSite: Equatable, Sendable {
    /// No secret from the site yet: `run` shows a pairing code and waits to be adopted.
    case unpaired(sites: [String])
    /// Adopted: `site.json` and `site.secret` in the state directory name the door and its secret.
    case paired(sites: [String], terminalID: String)

    /// How many addresses of one site a door may name (`site:`, `kioskpad pair --site`).
    public static let maxSites = SiteURLList.maxAddresses

    /// The files an adopted door keeps in its state directory (mode 600).
    public static let siteFile = "site.json"
    public static let secretFile = "site.secret"
    /// The settings the site gave it last and it runs (``SiteSettings``).
    public static let settingsFile = "site-settings.json"

    /// `site.json`'s properties for the replica keys: the one the site signs with, and the
    /// next one while it rotates them.
    public static let replicaKeyProperty = "replica_public_key"
    public static let nextReplicaKeyProperty = "replica_public_key_next"

    /// The replica keys an adopted door was given (`site.json`, each as `ed25519:BASE64`):
    /// the key its site signs settings and replicas with, and the next one during a
    /// rotation; nil when none.
    public static func replicaKeys(stateDirectory: String) -> (current: String, next: String?)? {
        guard let data = FileManager.default.contents(atPath: stateDirectory + "/" + siteFile),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], let current = object[replicaKeyProperty] as? String
        else { return nil }
        return (current, object[nextReplicaKeyProperty] as? String)
    }
}

/// Reads `site:` and, for a door without `verifier:`, what its state directory says of it.
enum SiteSection {
    /// `site:`: one address (`https://host:port`), or a list of 1 to 4 addresses of the same
    /// site (its `verifier serve` instances), tried in order as `verifier.urls` are.
    static func read(_ top: MappingReader) -> [String]? {
        top.declare("site")
        guard top.has("site") else { return nil }
        if top.has("verifier") {
            top.log.report("site", "and verifier: are alternatives: a door adopted by its site gets its verifier from it; remove one", at: top.value("site"))
        }
        let node = top.value("site")
        guard case .sequence = node else {
            return [address(top.string("site", default: ""), key: "site", top, at: node)]
        }
        guard
            let entries = SiteURLList.texts(
                node, at: "site", log: top.log,
                notAList:
                    "must be the site's address, or a list of 1 to \(SiteURLList.maxAddresses) addresses of the same site, e.g. [https://site-a.example:8787, https://site-b.example:8787]",
                notText: "must be text (the address of one of the site's instances)")
        else { return ["https://invalid.invalid"] }
        var sites: [String] = []
        for (text, path, item) in entries {
            let site = address(text, key: path, top, at: item)
            if sites.contains(site) { top.log.report(path, "\(ConfigText.quoted(text)) is listed twice", at: item) }
            sites.append(site)
        }
        return sites.isEmpty ? ["https://invalid.invalid"] : sites
    }

    /// `url` without a trailing slash, reported under `key` unless it is a site's address.
    private static func address(_ url: String, key: String, _ top: MappingReader, at node: Node?) -> String {
        let trimmed = url.hasSuffix("/") ? String(url.dropLast()) : url
        if let problem = VerifierURL.problem(trimmed + "/verify", allowInsecureHTTP: false) {
            top.log.report(key, "\(ConfigText.quoted(url)): \(problem)", at: node)
        } else if URL(string: trimmed)?.path.isEmpty == false {
            top.log.report(key, "\(ConfigText.quoted(url)) must be the site's address only (https://host:port), without a path", at: node)
        }
        return trimmed
    }

    /// `site_key`: the site's replica key given at install (`kioskpad verifier public-key`),
    /// which pins the site a door may be adopted by; only beside `site:`.
    static func key(_ top: MappingReader) -> String? {
        top.declare("site_key")
        guard top.has("site_key") else { return nil }
        let key = top.string("site_key", default: "")
        if !top.has("site") {
            top.log.report("site_key", "pins the site a door is adopted by, so it needs site: beside it", at: top.value("site_key"))
        } else if !OfflineSection.isPublicKey(key) {
            top.log.report(
                "site_key", "must be ed25519: and 32 bytes in base64, as `kioskpad verifier public-key` prints it on the site", at: top.value("site_key"))
        }
        return key
    }

    /// The door's standing with the site at `sites`, from `stateDirectory`: paired when both
    /// files are there and name a door; the verifier it then asks, at each address in order.
    static func standing(sites: [String], stateDirectory: String) -> (DoorSite, VerifierConfiguration) {
        let secret = stateDirectory + "/" + DoorSite.secretFile
        guard FileManager.default.fileExists(atPath: secret),
            let data = FileManager.default.contents(atPath: stateDirectory + "/" + DoorSite.siteFile),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], let terminalID = object["terminal_id"] as? String,
            Identifier.isValid(terminalID)
        else { return (.unpaired(sites: sites), .demo) }
        var http = HTTPVerifierConfiguration(url: sites[0] + "/verify", allowInsecureHTTP: false)
        http.otherURLs = sites.dropFirst().map { $0 + "/verify" }
        http.secret = .file(secret)
        return (.paired(sites: sites, terminalID: terminalID), .http(http))
    }
}
