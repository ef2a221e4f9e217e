import Foundation
import KeypadTestSupport
import Testing

/// `kioskpad verifier ...` runs the site server's executable, `kioskpad-verifier`, found beside
/// the real `kioskpad` (a door's binary has no server code); without it, it names the package.
@Suite("kioskpad verifier runs kioskpad-verifier", .heavy)
struct VerifierForwardingTests {
    @Test func versionAndHelpComeFromTheServersExecutable() async throws {
        let version = try await CLI.run(["verifier", "--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("kioskpad verifier "), "\(version.stdout)")
        // --help reaches the server's own parser: it lists the server's subcommands.
        let help = try await CLI.run(["verifier", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: kioskpad verifier <subcommand>"), "\(help.stdout)")
        #expect(help.stdout.contains("serve") && help.stdout.contains("public-key"), "\(help.stdout)")
        // A usage error is the server's, with its exit code.
        let missing = try await CLI.run(["verifier", "serve"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("Usage: kioskpad verifier serve --config <config>"), "\(missing.stderr)")
    }

    @Test func aLinkToKioskpadFindsTheServerBesideTheRealFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kioskpad-link-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let link = directory.appendingPathComponent("kioskpad")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: CLI.binary)
        let secret = try await CLI.run(["verifier", "secret"], executable: link)
        #expect(secret.status == 0)
        #expect(secret.stdout.hasPrefix("whsec_"))
    }

    @Test func aDoorWithoutTheServerSaysWhichPackageItNeeds() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kioskpad-alone-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let alone = directory.appendingPathComponent("kioskpad")
        // Copied by cp, not in this process: a write descriptor of ours on the copy could be
        // inherited by a program another test starts meanwhile, and exec would then fail
        // (ETXTBSY) for as long as that program runs.
        _ = try await CLI.runTool("/bin/cp", [CLI.binary.path, alone.path])
        let refused = try await CLI.run(["verifier", "serve", "--config", "/etc/kioskpad-verifier/verifier.yaml"], executable: alone)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("the site server is not installed: no \(directory.path)/kioskpad-verifier"), "\(refused.stderr)")
        #expect(refused.stderr.contains("install the kioskpad-verifier package"), "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        // The door's own commands do not need it.
        let version = try await CLI.run(["--version"], executable: alone)
        #expect(version.status == 0 && version.stdout.hasPrefix("kioskpad "), "\(version.stdout)")
    }
}
