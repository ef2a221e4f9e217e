import Foundation
import KeypadTestSupport
import TestPeers
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A card enrolled by holding it to a reader: `kioskpad run` with libosdp's reader (over a
/// pseudo-terminal pair, Secure Channel) against `verifier serve`; `verifier user learn-card`
/// arms the door, the card presented at the reader is learned (the reader's panel shows
/// `Card learned`, the door stays shut) and opens for its user from then on. (No metrics
/// listener: the suite's other door has the default port.)
extension OSDPDoorEndToEndTests {
    @Test func aCardHeldToAnArmedReaderIsLearnedAndThenOpens() async throws {
        let site = try await AccessRulesEndToEndTests.Site(.sqlite)
        try await site.closing {
            let server = try await VerifierProcess(directory: site.directory)
            defer { server.stop() }
            let (peer, keyFile) = try await secureReader(keyFileIn: site.directory)
            let state = site.directory.appendingPathComponent("osdp-state")
            let config = site.directory.appendingPathComponent("osdp-door.yaml")
            try """
            terminal_id: front-door
            state_dir: \(state.path)
            \(secureReaderLines(peer, keyFile: keyFile))
            display: {driver: osdp, columns: 16, rows: 2}
            verifier: {kind: http, url: "http://127.0.0.1:\(server.port)/verify", secret_file: secret}
            """.write(to: config, atomically: true, encoding: .utf8)
            let door = try SpawnedChild(
                [CLI.binary.path, "run", "--config", config.path], stdout: .file(site.directory.appendingPathComponent("door.out").path),
                stderr: .file(site.directory.appendingPathComponent("door.err").path))
            defer { _ = door.terminate() }
            let log = { (try? String(contentsOf: site.directory.appendingPathComponent("door.err"), encoding: .utf8)) ?? "" }
            #expect(await eventually { self.journal(state).contains("\"type\":\"reader_online\"") }, "\(journal(state))\(log())")
            let armed = try await site.cli(["verifier", "user", "learn-card", "bob", "--door", "front-door", "--no-wait"])
            #expect(armed.status == 0 && armed.stdout.contains("front-door armed until"), "\(armed.stdout)\(armed.stderr)")
            // Facility 12, number 3456 as a 26-bit card: value 00789888, a card nobody holds.
            peer.send("card 26 0606c040")
            #expect(
                await eventually { self.attempted(state, "\"kind\":\"card\"", "\"decision\":\"denied\"", "\"reason\":\"card_enrolled\"") },
                "a learned card does not open: \(journal(state))")
            #expect(await eventually { !peer.lines(containing: "Card learned").isEmpty }, "\(peer.lines)")
            let status = try await site.cli(["verifier", "user", "learn-card", "bob", "--status"])
            #expect(status.stdout.contains("front-door\tarmed") && status.stdout.contains("\tlearned"), "\(status.stdout)")
            try await Task.sleep(for: .seconds(3.5))  // the result screen ends
            peer.send("card 26 0606c040")
            #expect(await eventually { self.attempted(state, "\"kind\":\"card\"", "\"decision\":\"granted\"", "\"user\":\"bob\"") }, "\(journal(state))")
            #expect(!journal(state).contains("00789888"))
        }
    }
}
