import Crypto
import DoorConfig
import DoorVerifierClient
import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadStorage
import KioskPadThreads

/// `kioskpad pair`: an unpaired door asks its site to adopt it. Makes a key pair (kept in
/// memory only), announces it, shows the code (and keeps it, mode 600, in the state directory
/// for `kioskpad pair status` until the door is paired), polls, opens the delivery with the
/// code, and stores what it carried: `site.secret` (the door's own signing secret) and
/// `site.json` (the site, the door's name, the replica key), both mode 600 and fsynced.
public struct DoorPairingSession: Sendable {
    /// What the session stored once paired.
    public struct Paired: Sendable, Equatable {
        public let terminalID: String
        public let secretFile: String
        public let siteFile: String
        public let replicaPublicKey: String
    }

    /// The code while it waits (the site's files are ``DoorSite``'s).
    public static let codeFile = "pairing-code"

    let client: PairingClient
    let stateDirectory: String
    let hardware: String
    /// The site's replica key given at install (`site_key`), if any: a delivery naming
    /// another key is refused, so only that site can adopt the door.
    let siteKey: ReplicaPublicKey?

    /// Every address of the site, without a trailing slash, in the order asked.
    public var sites: [String] { client.sites }

    /// `sites`: the site's addresses, asked in order (its instances share the announcements).
    public init(sites: [String], stateDirectory: String, hardware: String, allowInsecureHTTP: Bool, siteKey: ReplicaPublicKey? = nil) throws {
        client = try PairingClient(sites: sites, allowInsecureHTTP: allowInsecureHTTP)
        self.stateDirectory = stateDirectory
        self.hardware = hardware
        self.siteKey = siteKey
    }

    /// The code an unpaired door shows, as `kioskpad pair status` reads it; nil when none waits.
    public static func shownCode(stateDirectory: String) -> String? {
        (try? String(contentsOfFile: stateDirectory + "/" + codeFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs until paired (or `deadline` passes, or the site ends the announcement): `show` gets
    /// each new code, `note` what happens (a delivery that did not open).
    public func run(
        until deadline: ContinuousClock.Instant, show: @Sendable (PairingCode) -> Void, note: @Sendable (String) -> Void
    ) async throws -> Paired {
        defer { try? FileManager.default.removeItem(atPath: stateDirectory + "/" + Self.codeFile) }
        let key = Curve25519.KeyAgreement.PrivateKey()
        let doorKey = key.publicKey.rawRepresentation
        let announcement = try await client.announce(doorKey: doorKey, hardware: hardware)
        let code = PairingCode.make(doorKey: doorKey, nonce: announcement.nonce)
        let codePath = stateDirectory + "/" + Self.codeFile
        try await WorkThreads.files.run { try DurableFile.replace(path: codePath, contents: Array((code.shown + "\n").utf8), mode: 0o600) }
        show(code)
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: announcement.pollInterval)
            switch try await client.poll(announcement.id) {
            case .waiting, .paired:
                continue
            case .gone:
                throw PairingClient.Failure(
                    description: "the site ended this announcement (its code ran out or was mistyped too often); run kioskpad pair again for a new code")
            case .delivered(let sealed):
                let opened: Data
                do {
                    opened = try PairingSeal.open(sealed, privateKey: key, code: code, announcement: announcement.id, nonce: announcement.nonce)
                } catch {
                    note("\(error)")
                    try await client.report(announcement.id, opened: nil)
                    continue
                }
                return try await store(opened, announcement: announcement.id)
            }
        }
        throw PairingClient.Failure(description: "no code was typed at the site in time; run kioskpad pair again for a new code")
    }

    private func store(_ opened: Data, announcement: String) async throws -> Paired {
        guard let bundle = try? JSONDecoder().decode(PairingBundle.self, from: opened), Identifier.isValid(bundle.terminalID),
            let secret = try? WebhookSecret(parsing: bundle.secret)
        else { throw PairingClient.Failure(description: "the delivery opened but is not a pairing bundle") }
        if let siteKey, (try? ReplicaPublicKey(parsing: bundle.replicaPublicKey)) != siteKey {
            try await client.report(announcement, opened: nil)
            throw PairingClient.Failure(
                description:
                    "the site the code was typed at signs with \(bundle.replicaPublicKey), not the site_key this door was given (\(siteKey)); "
                    + "nothing was stored: type the code at the site `kioskpad verifier public-key` names with that key")
        }
        let secretPath = stateDirectory + "/" + DoorSite.secretFile
        let sitePath = stateDirectory + "/" + DoorSite.siteFile
        let site = try JSONSerialization.data(
            withJSONObject: ["site": client.site, "terminal_id": bundle.terminalID, "replica_public_key": bundle.replicaPublicKey], options: [.sortedKeys])
        // fsync on the door's file thread, not a cooperative one.
        try await WorkThreads.files.run {
            try DurableFile.replace(path: secretPath, contents: Array((secret.text + "\n").utf8), mode: 0o600)
            try DurableFile.replace(path: sitePath, contents: Array(site) + [10], mode: 0o600)
        }
        try await client.report(announcement, opened: (bundle.terminalID, secret))
        return Paired(terminalID: bundle.terminalID, secretFile: secretPath, siteFile: sitePath, replicaPublicKey: bundle.replicaPublicKey)
    }

    public func shutdown() async {
        await client.shutdown()
    }
}
