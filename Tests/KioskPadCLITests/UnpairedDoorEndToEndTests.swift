import Foundation
import KeypadTestSupport
import TestPeers
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A door whose config names only its site: `kioskpad run` with libosdp's reader starts
/// unpaired, shows its pairing code on its display (not in its log), is adopted with
/// `verifier terminal adopt`, and goes live by itself (the same process started again): a PIN
/// typed at the reader is then decided by the site, signed with the door's own secret.
extension OSDPDoorEndToEndTests {
    @Test func aDoorNamingOnlyItsSiteShowsItsCodeIsAdoptedAndGoesLiveByItself() async throws {
        let site = try await AccessRulesEndToEndTests.Site(.sqlite)
        try await site.closing {
            let server = try await VerifierProcess(directory: site.directory)
            defer { server.stop() }
            let (peer, keyFile) = try await secureReader(keyFileIn: site.directory)
            let state = site.directory.appendingPathComponent("unpaired-state")
            let config = site.directory.appendingPathComponent("unpaired-door.yaml")
            try """
            site: "http://127.0.0.1:\(server.port)"
            state_dir: \(state.path)
            \(secureReaderLines(peer, keyFile: keyFile))
            display: {driver: plain, columns: 16, rows: 2}
            """.write(to: config, atomically: true, encoding: .utf8)
            let check = try await CLI.run(["config", "check", config.path])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
            let out = site.directory.appendingPathComponent("door.out")
            let err = site.directory.appendingPathComponent("door.err")
            let door = try SpawnedChild([CLI.binary.path, "run", "--config", config.path], stdout: .file(out.path), stderr: .file(err.path))
            defer { _ = door.terminate() }
            let shown: @Sendable () -> String = { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
            let log: @Sendable () -> String = { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }
            #expect(await eventually { shown().contains("Pair this door:") }, "\(shown())\(log())")
            let status = try await CLI.run(["pair", "status", "--state-dir", state.path])
            let code = String(status.stdout.dropFirst("waiting: pairing code ".count).prefix(14))
            #expect(status.stdout.hasPrefix("waiting: pairing code ") && shown().contains(code), "\(status.stdout)\(shown())")
            #expect(log().contains("waiting to be adopted") && !log().contains(code.suffix(9)), "the code is on the display, never in the log: \(log())")
            let adopted = try await site.cli(["verifier", "terminal", "adopt", code, "--name", "front-door"])
            #expect(adopted.status == 0, "\(adopted.stderr)")
            #expect(await eventually { self.journal(state).contains("\"type\":\"reader_online\"") }, "\(log())\(journal(state))")
            #expect(shown().contains("Paired as") && log().contains("adopted by the site"), "\(shown())")
            // bob may open front-door only: the door is front-door now, and asks the site.
            peer.send("keys 1470")
            #expect(
                await eventually { self.attempted(state, "\"kind\":\"pin\"", "\"decision\":\"granted\"", "\"user\":\"bob\"") }, "\(journal(state))\(log())")
            #expect(try await CLI.run(["pair", "status", "--state-dir", state.path]).stdout.hasPrefix("paired: "))
        }
    }
}
