import Foundation
import KeypadTestSupport
import TestPeers
import Testing

/// A door set to ask for card and PIN with `kioskpad verifier card-pin set`, run as
/// `kioskpad run` with libosdp's reader (card and keypad) against `verifier serve`: a card
/// alone makes the door ask for its PIN (journaled `second_factor_required`, one short beep,
/// no red LED), the card with its holder's PIN opens, another PIN does not; with the
/// verifier stopped the door decides the same from its replica.
extension OfflineDoorEndToEndTests {
    @Test(arguments: AccessRulesEndToEndTests.Store.allCases)
    func aCardAndPINDoorAsksForThePINAfterTheCardOnlineAndOffline(_ store: AccessRulesEndToEndTests.Store) async throws {
        let site = try await AccessRulesEndToEndTests.Site(store)
        try await site.closing {
            let door = try await Door(site)
            let server = try await VerifierProcess(directory: site.directory)
            defer { server.stop() }
            // Facility 12, number 3456 as a 26-bit card: the value 00789888.
            let card = try await site.cli(["verifier", "user", "add-card", "dana", "--iterations", "1000"], stdin: "00789888\n")
            #expect(card.status == 0, "\(card.stderr)")
            let set = try await site.cli(["verifier", "card-pin", "set", "front-door"])
            #expect(set.status == 0 && set.stdout.contains("door front-door asks for card and PIN always"), "\(set.stdout)\(set.stderr)")
            #expect(try await site.cli(["verifier", "card-pin", "list"]).stdout == "front-door always\n")
            let unknown = try await site.cli(["verifier", "card-pin", "set", "side", "--schedule", "nope"])
            #expect(unknown.status != 0 && unknown.stderr.contains("--schedule nope: no such schedule"), "\(unknown.stderr)")

            let peer = try OSDPPeer(arguments: [])
            #expect(await peer.waitUntilReady())
            try door.configure(port: server.port)
            #expect(try await door.credentials("sync").status == 0)
            // `credentials show` names the rule the replica carries and what it requires of the door.
            let shown = try await door.credentials("show").stdout
            #expect(shown.contains("card and PIN: always\n") && shown.contains("requires: card_pin\n") && shown.contains("unlock schedule: none\n"), "\(shown)")
            // The same door, its keys and card from the reader: `kioskpad run`.
            var config = try String(contentsOfFile: door.config, encoding: .utf8)
            config +=
                "\n" + """
                    entry: {min_length: 4, max_length: 4}
                    keypad: {driver: osdp, device: \(peer.panelDevice), baud: 115200, offline_s: 2, readers: [{address: 1}]}
                    display: {driver: osdp, columns: 16, rows: 2}
                    metrics: {listen: "off"}

                    """
            try config.write(toFile: door.config, atomically: true, encoding: .utf8)
            let err = site.directory.appendingPathComponent("door.err")
            let running = try SpawnedChild(
                [CLI.binary.path, "run", "--config", door.config], stdout: .file(site.directory.appendingPathComponent("door.out").path),
                stderr: .file(err.path))
            defer { _ = running.terminate() }
            let log = { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }
            let journalFile = door.state.appendingPathComponent("journal.jsonl")
            let journal: @Sendable () -> String = { (try? String(contentsOf: journalFile, encoding: .utf8)) ?? "" }
            let attempted: @Sendable ([String]) -> Bool = { fields in
                journal().split(separator: "\n").contains { line in line.contains("\"type\":\"attempt\"") && fields.allSatisfy { line.contains($0) } }
            }
            #expect(await eventually { journal().contains("\"type\":\"reader_online\"") }, "\(log())")

            // Online: the card alone asks for the PIN; the card with dana's PIN opens.
            peer.send("card 26 0606c040")
            #expect(await eventually { attempted(["\"kind\":\"card\"", "\"reason\":\"second_factor_required\""]) }, "\(journal())")
            #expect(await eventually { !peer.lines(containing: "Card read: PIN").isEmpty }, "\(peer.lines)")
            #expect(peer.lines(containing: "\"on_color\": 1").isEmpty, "no red LED for the card: \(peer.lines)")
            peer.send("keys 3691")
            #expect(await eventually { attempted(["\"kind\":\"card_pin\"", "\"decision\":\"granted\"", "\"user\":\"dana\""]) }, "\(journal())")
            #expect(try await site.deniedReasons().last == "second_factor_required")
            // bob's PIN with dana's card, and a PIN alone: denied. Keys are typed only once the
            // door asks for them (while it verifies, keys are dropped).
            let asked: @Sendable (Int) -> Bool = { count in journal().components(separatedBy: "\"reason\":\"second_factor_required\"").count - 1 >= count }
            peer.send("card 26 0606c040")
            #expect(await eventually { asked(2) }, "\(journal())")
            peer.send("keys 1470")
            #expect(await eventually { attempted(["\"kind\":\"card_pin\"", "\"decision\":\"denied\""]) }, "\(journal())")
            peer.send("keys 3691")
            #expect(await eventually { attempted(["\"kind\":\"pin\"", "\"reason\":\"second_factor_required\""]) }, "\(journal())")

            // Offline: the replica carries the rule, and the door decides the same. The card and
            // its PIN are presented again, once, when the door dropped a reader message
            // meanwhile (journaled: a reply late under load breaks OSDP's sequence, and the
            // keys in it are lost, as at a real door); the decisions are what is checked.
            await server.stopped()
            let dropped: @Sendable () -> Int = { journal().components(separatedBy: "\"type\":\"reader_message_dropped\"").count - 1 }
            var granted = false
            for _ in 0..<2 where !granted {
                let before = dropped()
                peer.send("card 26 0606c040")
                let offlineCard = ["\"kind\":\"card\"", "\"offline\":true", "\"reason\":\"second_factor_required\""]
                guard await eventually({ attempted(offlineCard) || dropped() > before }), attempted(offlineCard) else { continue }
                peer.send("keys 3691")
                granted = await eventually { attempted(["\"kind\":\"card_pin\"", "\"offline\":true", "\"decision\":\"granted\""]) }
                if !granted && dropped() == before { break }
            }
            #expect(granted, "\(journal())")
            // The card number is in neither the journal nor the log.
            #expect(!journal().contains("00789888") && !log().contains("00789888"))
        }
    }
}
