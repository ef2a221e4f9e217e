import Crypto
import DoorConfig
import DoorVerifierClient
import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadStorage
import KioskPadThreads

/// `kioskpad pair`: an unpaired door asks its site to adopt it. Makes a key pair and its half
/// of the pairing exchange on the code's secret digits (both kept in memory only), announces
/// them, shows the code (and keeps it, mode 600, in the state directory
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
        let secret = PairingCode.drawSecret()
        let half = try PairingExchange.doorHalf(secret: secret, doorKey: doorKey)
        let resultKey = Curve25519.Signing.PrivateKey()
        let announcement = try await client.announce(
            doorKey: doorKey, half: half, resultKey: resultKey.publicKey.rawRepresentation, hardware: hardware)
        let code = PairingCode.make(doorKey: doorKey, nonce: announcement.nonce, secret: secret)
        var failed = 0
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
                    opened = try PairingSeal.open(sealed, privateKey: key, half: half, announcement: announcement.id, nonce: announcement.nonce)
                } catch {
                    note("\(error)")
                    try await client.report(announcement.id, opened: nil, resultKey: resultKey)
                    // Each delivery that did not open was one live guess of the digits: after
                    // as many as the site allows, this door takes no more for this code.
                    failed += 1
                    guard failed < PairingExchange.maxFailedExchanges else {
                        throw PairingClient.Failure(
                            description:
                                "\(failed) deliveries did not open (the code was mistyped, or someone guessed); this code takes no more: run kioskpad pair again for a new code"
                        )
                    }
                    continue
                }
                return try await store(opened, announcement: announcement.id, resultKey: resultKey)
            }
        }
        throw PairingClient.Failure(description: "no code was typed at the site in time; run kioskpad pair again for a new code")
    }

    private func store(_ opened: Data, announcement: String, resultKey: Curve25519.Signing.PrivateKey) async throws -> Paired {
        guard let bundle = try? JSONDecoder().decode(PairingBundle.self, from: opened), Identifier.isValid(bundle.terminalID),
            let secret = try? WebhookSecret(parsing: bundle.secret)
        else { throw PairingClient.Failure(description: "the delivery opened but is not a pairing bundle") }
        if let siteKey, (try? ReplicaPublicKey(parsing: bundle.replicaPublicKey)) != siteKey {
            try await client.report(announcement, opened: nil, resultKey: resultKey)
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
        try await client.report(announcement, opened: (bundle.terminalID, secret), resultKey: resultKey)
        return Paired(terminalID: bundle.terminalID, secretFile: secretPath, siteFile: sitePath, replicaPublicKey: bundle.replicaPublicKey)
    }

    public func shutdown() async {
        await client.shutdown()
    }
}
