import ArgumentParser
import DoorAssembly
import DoorConfig
import Foundation
import KioskPadAccess
import KioskPadCommandLine

/// `kioskpad pair`: asks a site to adopt this door (docs/site-server.md, "Adopting a door").
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Ask a site to adopt this door: show a pairing code, and store the secret and keys the site seals to it.",
        subcommands: [Start.self, Status.self], defaultSubcommand: Start.self)

    /// `pair [start]`: announce, show the code, wait for it to be typed at the site.
    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "start",
            abstract: "Announce this door to the site, print its pairing code, and wait until the code is typed there (or --wait-s).")
        @Option(
            help: """
                The site's address, e.g. https://site.example:8787 (http:// only to loopback unless --allow-insecure-http); \
                give it up to \(DoorSite.maxSites) times for the instances of one site, asked in order.
                """)
        var site: [String] = []
        @Option(help: "Where the door keeps its state; the secret and site.json go here (mode 600).")
        var stateDir = DaemonConfiguration.defaultStateDirectory
        @Option(help: "A one-line summary of this door's hardware, shown to the administrator.")
        var hardware = ""
        @Option(help: "How long to wait for the code to be typed at the site, in seconds (10...3600).")
        var waitS = 900
        @Flag(help: "Allow plain http:// to a site that is not on loopback (the code and the delivery stay sealed; the site is not authenticated).")
        var allowInsecureHTTP = false
        @Option(help: "The site's key (`kioskpad verifier public-key` on the site, ed25519:...): only the site signing with it may adopt this door.")
        var siteKey: String?

        func validate() throws {
            guard (1...DoorSite.maxSites).contains(site.count) else {
                throw ValidationError("--site is given \(site.count) times: give the site's address 1 to \(DoorSite.maxSites) times")
            }
            var seen = Set<String>()
            for address in site where !seen.insert(address.hasSuffix("/") ? String(address.dropLast()) : address).inserted {
                throw ValidationError("--site \(address) is given twice: give each of the site's addresses once")
            }
            guard (10...3600).contains(waitS) else { throw ValidationError("--wait-s \(waitS) must be 10...3600") }
            if let siteKey, (try? ReplicaPublicKey(parsing: siteKey)) == nil {
                throw ValidationError("--site-key must be ed25519: and 32 bytes in base64, as `kioskpad verifier public-key` prints it on the site")
            }
            guard PairingHardware.isSummary(hardware) else {
                throw ValidationError("--hardware must be one line of at most \(PairingHardware.maxBytes) bytes, no control characters")
            }
        }

        func run() async throws {
            try FileManager.default.createDirectory(atPath: stateDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let session = try DoorPairingSession(
                sites: site, stateDirectory: stateDir, hardware: hardware, allowInsecureHTTP: allowInsecureHTTP,
                siteKey: siteKey.flatMap { try? ReplicaPublicKey(parsing: $0) })
            do {
                let paired = try await session.run(
                    until: .now + .seconds(waitS),
                    show: { code in writeLine("pairing code: \(code.shown)  (at the site: kioskpad verifier terminal adopt --name NAME, then type it)") },
                    note: { writeLine("warning: \($0); waiting for the code to be typed again") })
                await session.shutdown()
                writeLine("paired as \(paired.terminalID): secret in \(paired.secretFile), site in \(paired.siteFile)")
                writeLine("verifier: {kind: http, \(Self.verifierURLs(session.sites)), secret_file: \(paired.secretFile)}")
                writeLine("terminal_id: \(paired.terminalID)")
            } catch {
                await session.shutdown()
                throw RuntimeFailure(description: "pair: \(error)")
            }
        }

        /// The `verifier:` line's addresses (`sites` without a trailing slash): `url: "…/verify"`
        /// for one, `urls: [...]` for several.
        static func verifierURLs(_ sites: [String]) -> String {
            let urls = sites.map { "\"\($0)/verify\"" }
            return urls.count == 1 ? "url: \(urls[0])" : "urls: [\(urls.joined(separator: ", "))]"
        }
    }

    /// `pair status`: the code a waiting door shows, or whether it is paired.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the pairing code this door shows while it waits, or the site it is paired with.")
        @Option(help: "The door's state directory.") var stateDir = DaemonConfiguration.defaultStateDirectory

        func run() throws {
            if let code = DoorPairingSession.shownCode(stateDirectory: stateDir) {
                writeLine("waiting: pairing code \(code)")
            } else if let site = try? String(contentsOfFile: stateDir + "/" + DoorSite.siteFile, encoding: .utf8) {
                writeLine("paired: \(site.trimmingCharacters(in: .whitespacesAndNewlines))")
            } else {
                writeLine("not paired and not waiting (kioskpad pair --site URL)")
            }
        }
    }
}
