import DoorConfig
import Foundation
import KioskPadConfig
import Testing

/// `site:` without `verifier:`: a door adopted by its site. Unpaired until `site.json` and
/// `site.secret` are in its state directory; then its name and verifier come from them.
@Suite("Config: a door that names only its site")
struct SiteConfigTests {
    func state() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-site-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func unpairedThenPairedFromTheStateDirectory() throws {
        let directory = try state()
        defer { try? FileManager.default.removeItem(at: directory) }
        let yaml = "site: https://site.example:8787/\nstate_dir: \(directory.path)\nkeypad: {driver: evdev, device: /dev/input/event3}\n"
        let unpaired = try ConfigLoader.parse(yaml: yaml, source: "t")
        #expect(unpaired.site == .unpaired(sites: ["https://site.example:8787"]))
        try "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n".write(to: directory.appendingPathComponent("site.secret"), atomically: true, encoding: .utf8)
        try #"{"site":"https://site.example:8787","terminal_id":"front-door","replica_public_key":"ed25519:AAAA"}"#.write(
            to: directory.appendingPathComponent("site.json"), atomically: true, encoding: .utf8)
        let paired = try ConfigLoader.parse(yaml: yaml, source: "t")
        #expect(paired.site == .paired(sites: ["https://site.example:8787"], terminalID: "front-door") && paired.terminalID == "front-door")
        guard case .http(let http) = paired.verifier else {
            Issue.record("a paired door asks its site: \(paired.verifier)")
            return
        }
        #expect(http.url == "https://site.example:8787/verify" && http.secret == .file(directory.appendingPathComponent("site.secret").path))
        let named = configProblems(yaml + "terminal_id: back-door\n")
        #expect(named.contains { $0.hasPrefix("terminal_id: is 'back-door' but the site adopted this door as 'front-door'") }, "\(named)")
    }

    @Test func mistakesNameTheKey() {
        let keypad = "keypad: {driver: evdev, device: /dev/input/event3}\n"
        let both = configProblems("site: https://site.example\nverifier: {kind: demo}\n" + keypad)
        #expect(both.contains { $0.hasPrefix("site: and verifier: are alternatives") }, "\(both)")
        let plain = configProblems("site: http://site.example\n" + keypad)
        #expect(plain.contains { $0.hasPrefix("site: 'http://site.example':") }, "\(plain)")
        let path = configProblems("site: https://site.example/verify\n" + keypad)
        #expect(path.contains { $0.hasPrefix("site: 'https://site.example/verify' must be the site's address only") }, "\(path)")
        let neither = configProblems(keypad)
        #expect(neither.contains { $0.hasPrefix("verifier: is required") }, "\(neither)")
    }

    /// `site:` may list the same site's instances: pairing and, once paired, every request
    /// ask them in order, as `verifier.urls`.
    @Test func aSiteOfSeveralInstancesIsAListOfItsAddresses() throws {
        let directory = try state()
        defer { try? FileManager.default.removeItem(at: directory) }
        let yaml =
            "site: [https://site-a.example:8787/, https://site-b.example:8787]\nstate_dir: \(directory.path)\nkeypad: {driver: evdev, device: /dev/input/event3}\n"
        let unpaired = try ConfigLoader.parse(yaml: yaml, source: "t")
        #expect(unpaired.site == .unpaired(sites: ["https://site-a.example:8787", "https://site-b.example:8787"]))
        try "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n".write(to: directory.appendingPathComponent("site.secret"), atomically: true, encoding: .utf8)
        try #"{"site":"https://site-a.example:8787","terminal_id":"front-door","replica_public_key":"ed25519:AAAA"}"#.write(
            to: directory.appendingPathComponent("site.json"), atomically: true, encoding: .utf8)
        let paired = try ConfigLoader.parse(yaml: yaml, source: "t")
        guard case .http(let http) = paired.verifier else {
            Issue.record("a paired door asks its site: \(paired.verifier)")
            return
        }
        #expect(http.urls == ["https://site-a.example:8787/verify", "https://site-b.example:8787/verify"], "\(http.urls)")
    }

    @Test func aListOfSiteAddressesNamesTheEntryThatIsWrong() {
        let keypad = "keypad: {driver: evdev, device: /dev/input/event3}\n"
        let twice = configProblems("site: [https://a.example, https://a.example/]\n" + keypad)
        #expect(twice.contains { $0.hasPrefix("site[1]: 'https://a.example/' is listed twice") }, "\(twice)")
        let plain = configProblems("site: [https://a.example, http://b.example]\n" + keypad)
        #expect(plain.contains { $0.hasPrefix("site[1]: 'http://b.example':") }, "\(plain)")
        let empty = configProblems("site: []\n" + keypad)
        #expect(empty.contains { $0.hasPrefix("site: must be the site's address, or a list of 1 to 4 addresses") }, "\(empty)")
        let five = configProblems("site: [https://a.example, https://b.example, https://c.example, https://d.example, https://e.example]\n" + keypad)
        #expect(five.contains { $0.hasPrefix("site: must be the site's address, or a list of 1 to 4") }, "\(five)")
        let nested = configProblems("site: [[https://a.example]]\n" + keypad)
        #expect(nested.contains { $0.hasPrefix("site[0]: must be text") }, "\(nested)")
    }
}
