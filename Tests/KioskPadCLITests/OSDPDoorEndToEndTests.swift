import Foundation
import KeypadTestSupport
import TestPeers
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `kioskpad run` with `keypad: {driver: osdp}` against libosdp's reader over a pseudo-terminal
/// pair: a PIN typed at the reader and a card presented to it are granted from the users file,
/// the reader's LED answers, and its supervision is journaled; `kioskpad osdp keyset` gives a
/// reader in install mode its own key.
@Suite(.heavy)
struct OSDPDoorEndToEndTests {
    static let key = "5a1f00d3c2b4e6a798310fedcba98765"

    func journal(_ state: URL) -> String {
        (try? String(contentsOf: state.appendingPathComponent("journal.jsonl"), encoding: .utf8)) ?? ""
    }

    /// libosdp's reader insisting on the Secure Channel with ``key``, and that key in
    /// `directory/reader1.scbk` (mode 600).
    func secureReader(keyFileIn directory: URL) async throws -> (OSDPPeer, URL) {
        let peer = try OSDPPeer(arguments: ["--key", Self.key, "--enforce-secure"])
        #expect(await peer.waitUntilReady())
        let keyFile = directory.appendingPathComponent("reader1.scbk")
        try (Self.key + "\n").write(to: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile.path, 0o600)
        return (peer, keyFile)
    }

    /// A door config's `keypad:` on `peer`'s line (reader 1 keyed by `keyFile`), 4-digit PINs
    /// and the reader's panel as the display, with no metrics listener.
    func secureReaderLines(_ peer: OSDPPeer, keyFile: URL) -> String {
        """
        entry: {min_length: 4, max_length: 4}
        keypad:
          driver: osdp
          device: \(peer.panelDevice)
          baud: 115200
          readers: [{address: 1, scbk_file: \(keyFile.path)}]
        metrics: {listen: "off"}
        """
    }

    /// True when one attempt record has every one of `fields`.
    /// The door's attempt records, oldest first.
    func attempts(_ state: URL) -> [Substring] {
        journal(state).split(separator: "\n").filter { $0.contains("\"type\":\"attempt\"") }
    }

    func attempted(_ state: URL, _ fields: String...) -> Bool {
        journal(state).split(separator: "\n").contains { line in line.contains("\"type\":\"attempt\"") && fields.allSatisfy { line.contains($0) } }
    }

    @Test func aPINAndACardAtASecureReaderOpenTheDoorAndItsSupervisionIsJournaled() async throws {
        let peer = try OSDPPeer(arguments: ["--key", Self.key, "--enforce-secure"])
        #expect(await peer.waitUntilReady())
        let folder = URL(fileURLWithPath: peer.folder)
        let keyFile = folder.appendingPathComponent("reader1.scbk")
        try (Self.key + "\n").write(to: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile.path, 0o600)
        let pin = try await CLI.run(["pin", "hash", "--user", "ana", "--iterations", "1000"], stdin: "2580\n")
        // Facility 12, number 3456 as a 26-bit card: the value a Wiegand reader gives, 00789888.
        let card = try await CLI.run(["pin", "hash", "--user", "carla", "--iterations", "1000"], stdin: "00789888\n")
        let users = folder.appendingPathComponent("users")
        try (pin.stdout + card.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + ":card\n").write(to: users, atomically: true, encoding: .utf8)
        let state = folder.appendingPathComponent("state")
        let config = folder.appendingPathComponent("door.yaml")
        try """
        terminal_id: osdp-door
        state_dir: \(state.path)
        entry: {min_length: 4, max_length: 4}
        keypad:
          driver: osdp
          device: \(peer.panelDevice)
          baud: 115200
          offline_s: 2
          readers: [{address: 1, scbk_file: \(keyFile.path)}]
        display: {driver: osdp, columns: 16, rows: 2}
        verifier: {kind: local, users_file: \(users.path)}
        """.write(to: config, atomically: true, encoding: .utf8)
        let door = try SpawnedChild(
            [CLI.binary.path, "run", "--config", config.path], stdout: .file(folder.appendingPathComponent("out").path),
            stderr: .file(folder.appendingPathComponent("err").path))
        defer { _ = door.terminate() }
        let log = { (try? String(contentsOf: folder.appendingPathComponent("err"), encoding: .utf8)) ?? "" }
        #expect(await eventually { self.journal(state).contains("\"type\":\"reader_online\"") }, "\(log())")
        #expect(journal(state).contains("\"reader\":1,\"secure\":true"), "\(journal(state))")
        peer.send("keys 2580")
        #expect(await eventually { self.attempted(state, "\"kind\":\"pin\"", "\"decision\":\"granted\"", "\"user\":\"ana\"") }, "\(journal(state))")
        #expect(await eventually { peer.lines(containing: "\"on_color\": 2").count == 1 }, "\(peer.lines)")
        // The reader's text panel showed the prompt, the masked slots and the result, never the PIN.
        #expect(await eventually { !peer.lines(containing: "Access granted").isEmpty }, "\(peer.lines)")
        #expect(!peer.lines(containing: "Enter PIN").isEmpty && !peer.lines(containing: "* * * *").isEmpty, "\(peer.lines)")
        #expect(peer.lines(containing: "2580").isEmpty)
        peer.send("card 26 0606c040")
        #expect(await eventually { self.attempted(state, "\"kind\":\"card\"", "\"decision\":\"granted\"", "\"user\":\"carla\"") }, "\(journal(state))")
        peer.send("keys 1111")
        #expect(await eventually { self.attempted(state, "\"decision\":\"denied\"") })
        #expect(await eventually { peer.lines(containing: "\"on_color\": 1").count == 1 }, "\(peer.lines)")
        peer.send("pause")
        #expect(await eventually { self.journal(state).contains("\"type\":\"reader_offline\"") }, "\(journal(state))")
        // Neither the key nor the card number is in the journal or the log.
        for secret in [Self.key, "00789888"] {
            #expect(!journal(state).contains(secret) && !log().contains(secret))
        }
    }

    @Test func keytestShowsTheReaderItsKeysAndACardsValueToEnrolIt() async throws {
        let peer = try OSDPPeer(arguments: ["--key", Self.key])
        #expect(await peer.waitUntilReady())
        let folder = URL(fileURLWithPath: peer.folder)
        let keyFile = folder.appendingPathComponent("reader1.scbk")
        try (Self.key + "\n").write(to: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile.path, 0o600)
        let config = folder.appendingPathComponent("door.yaml")
        try """
        keypad: {driver: osdp, device: \(peer.panelDevice), baud: 115200, readers: [{address: 1, scbk_file: \(keyFile.path)}]}
        verifier: {kind: demo}
        """.write(to: config, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("keytest.out")
        let keytest = try SpawnedChild([CLI.binary.path, "keytest", "--config", config.path], stdout: .file(output.path), stderr: .file(output.path))
        let printed: @Sendable () -> String = { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }
        #expect(await eventually { printed().contains("reader  1 online, Secure Channel") }, "\(printed())")
        peer.send("keys 7#")
        peer.send("card 26 0606c040")
        #expect(await eventually { printed().contains("card    26 bits: value 00789888") }, "\(printed())")
        #expect(printed().contains("press   key '7'") && printed().contains("press   key '#'"), "\(printed())")
        #expect(printed().hasPrefix("keytest: OSDP on \(peer.panelDevice) at 115200 baud, readers 1"))
        #expect(keytest.terminate() == 0, "\(printed())")
        #expect(!printed().contains(Self.key))
    }

    @Test func configCheckWithFilesReadsTheKeyFilesAsRunDoes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kp-osdp-check-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyFile = folder.appendingPathComponent("reader.scbk")
        try "not a key\n".write(to: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile.path, 0o644)
        let config = folder.appendingPathComponent("door.yaml")
        try """
        state_dir: \(folder.path)
        keypad: {driver: osdp, device: /dev/ttyUSB0, readers: [{address: 1}, {address: 2, scbk_file: reader.scbk}]}
        verifier: {kind: local, users_file: \(CLI.root.appendingPathComponent("config/users.example").path)}
        """.write(to: config, atomically: true, encoding: .utf8)
        let open = try await CLI.run(["config", "check", "--with-files", config.path])
        #expect(open.status == 2 && open.stderr.contains("keypad.readers[1].scbk_file") && open.stderr.contains("chmod 600"), "\(open.stderr)")
        chmod(keyFile.path, 0o600)
        let bad = try await CLI.run(["config", "check", "--with-files", config.path])
        #expect(bad.status == 2 && bad.stderr.contains("must hold the reader's Secure Channel key as 32 hex digits"), "\(bad.stderr)")
        #expect(!bad.stderr.contains("not a key"))
        try "A1B2C3D4E5F60718293A4B5C6D7E8F90\n".write(to: keyFile, atomically: false, encoding: .utf8)
        let good = try await CLI.run(["config", "check", "--with-files", config.path])
        #expect(good.status == 0, "\(good.stderr)")
    }

    @Test func keysetGivesAReaderInInstallModeItsOwnKeyAndNeverPrintsIt() async throws {
        let peer = try OSDPPeer(arguments: ["--install-mode"])
        #expect(await peer.waitUntilReady())
        let folder = URL(fileURLWithPath: peer.folder)
        let config = folder.appendingPathComponent("door.yaml")
        try """
        keypad: {driver: osdp, device: \(peer.panelDevice), baud: 115200, readers: [{address: 1}]}
        display: {driver: plain}
        verifier: {kind: local, users_file: \(CLI.root.appendingPathComponent("config/users.example").path)}
        """.write(to: config, atomically: true, encoding: .utf8)
        let keyFile = folder.appendingPathComponent("new.scbk").path
        let result = try await CLI.run(["osdp", "keyset", "--config", config.path, "--address", "1", "--key-file", keyFile, "--generate"])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("reader 1 now uses the key in \(keyFile)"))
        let written = try String(contentsOfFile: keyFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(written.count == 32)
        #expect(!result.stdout.contains(written) && !result.stderr.contains(written))
        let mode = try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Again: the reader has left install mode, so the default key is refused, and the key
        // file is never overwritten.
        let again = try await CLI.run(["osdp", "keyset", "--config", config.path, "--address", "1", "--key-file", keyFile, "--generate"])
        #expect(again.status != 0 && again.stderr.contains("--key-file") && again.stderr.contains("exists"), "\(again.stderr)")
        let refused = try await CLI.run(["osdp", "keyset", "--config", config.path, "--address", "1", "--key-file", keyFile])
        #expect(refused.status != 0 && refused.stderr.contains("not in install mode"), "\(refused.stderr)")
    }
}
