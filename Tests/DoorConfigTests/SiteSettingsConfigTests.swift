import DoorConfig
import Foundation
import KioskPadConfig
import Testing

/// Settings from an adopted door's site laid under its own file: the file wins where both
/// speak; door times and display texts go only into a `door:` or `display:` the file has;
/// stored settings are read at every start; a candidate the checker refuses names the key.
@Suite("Config: settings from the site under the door's own file")
struct SiteSettingsConfigTests {
    static func payload(_ version: Int, _ settings: String, door: String = "front-door") -> String {
        "{\"kind\":\"settings\",\"settings\":{\(settings)},\"terminal_id\":\"\(door)\",\"version\":\(version)}"
    }

    func paired() throws -> (URL, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-settings-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n".write(to: directory.appendingPathComponent("site.secret"), atomically: true, encoding: .utf8)
        try #"{"site":"https://site.example:8787","terminal_id":"front-door","replica_public_key":"ed25519:AAAA"}"#.write(
            to: directory.appendingPathComponent("site.json"), atomically: true, encoding: .utf8)
        let yaml = """
            site: https://site.example:8787
            state_dir: \(directory.path)
            keypad: {driver: evdev, device: /dev/input/event3}
            display: {driver: plain}
            entry: {timeout_s: 12}

            """
        let file = directory.appendingPathComponent("door.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        return (directory, file.path)
    }

    @Test func theFileWinsAndHardwareSectionsStayTheFiles() throws {
        let (directory, file) = try paired()
        defer { try? FileManager.default.removeItem(at: directory) }
        let settings = try #require(
            SiteSettings(
                payload: Self.payload(
                    4, #""entry.timeout_s":30,"entry.result_s":2,"lockout.max_failures":3,"display.texts.enter_pin":"PIN please","door.unlock_s":9"#)))
        let checked = try ConfigLoader.check(path: file, with: settings)
        #expect(checked.entry.inactivityTimeout == .seconds(12), "the file's entry.timeout_s wins")
        #expect(checked.entry.resultDuration == .seconds(2) && checked.entry.lockout.maxFailures == 3)
        #expect(checked.display.texts.enterPIN == "PIN please")
        #expect(checked.daemon.door == nil, "no door: in the file, so the site's door times make no relay")
        #expect(checked.siteSettingsVersion == 4)
        // Stored: read at every start.
        #expect(try ConfigLoader.load(path: file).siteSettingsVersion == 0)
        try Self.payload(4, #""entry.result_s":2"#).write(to: directory.appendingPathComponent("site-settings.json"), atomically: true, encoding: .utf8)
        let started = try ConfigLoader.load(path: file)
        #expect(started.siteSettingsVersion == 4 && started.entry.resultDuration == .seconds(2))
    }

    @Test func aCandidateTheCheckerRefusesNamesTheKey() throws {
        let (directory, file) = try paired()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bad = try #require(SiteSettings(payload: Self.payload(5, #""entry.min_length":9,"entry.max_length":6"#)))
        #expect {
            try ConfigLoader.check(path: file, with: bad)
        } throws: { error in
            "\(error)".contains("entry.min_length") || "\(error)".contains("entry.max_length")
        }
        #expect(SiteSettings(payload: #"{"kind":"replica","version":3}"#) == nil)
        let texts = try #require(SiteSettings(payload: Self.payload(6, #""display.texts.title":"Lobby""#)))
        let earlier = try #require(SiteSettings(payload: Self.payload(5, #""display.texts.title":"Hall","entry.result_s":2"#)))
        #expect(texts.changedKeys(since: earlier) == ["display.texts.title", "entry.result_s"])
        #expect(texts.changedKeys(since: nil) == ["display.texts.title"])
    }

    @Test func offlineDecisionsAndMQTTAreTheSitesToTurnOnAndOff() throws {
        let (directory, file) = try paired()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = "ed25519:" + Data(repeating: 7, count: 32).base64EncodedString()
        let next = "ed25519:" + Data(repeating: 9, count: 32).base64EncodedString()
        try "{\"replica_public_key\":\"\(key)\",\"replica_public_key_next\":\"\(next)\",\"terminal_id\":\"front-door\"}".write(
            to: directory.appendingPathComponent("site.json"), atomically: true, encoding: .utf8)
        let offline = try #require(
            SiteSettings(payload: Self.payload(7, #""verifier.offline.mode":"fallback","verifier.offline.sync_s":30,"mqtt.enabled":false"#)))
        let checked = try ConfigLoader.check(path: file, with: offline)
        guard case .http(let http) = checked.verifier, let replica = http.offline else {
            Issue.record("an adopted door told to decide offline keeps a replica: \(checked.verifier)")
            return
        }
        #expect(replica.mode == .fallback && replica.syncInterval == .seconds(30) && replica.maxAge == .seconds(24 * 3600))
        #expect(replica.publicKey == key && replica.nextPublicKey == next, "the keys the site gave, both during a rotation")
        #expect(replica.url == "https://site.example:8787/v1/credentials")
        #expect(checked.daemon.mqtt == nil, "no mqtt: in the file, so nothing to turn on or off")
        // The door's own checker holds the site's values to its ranges, naming the key.
        let tooOften = try #require(SiteSettings(payload: Self.payload(8, #""verifier.offline.mode":"fallback","verifier.offline.sync_s":1"#)))
        #expect { try ConfigLoader.check(path: file, with: tooOften) } throws: { "\($0)".contains("verifier.offline.sync_s") }
        let unknownMode = try #require(SiteSettings(payload: Self.payload(9, #""verifier.offline.mode":"always""#)))
        #expect { try ConfigLoader.check(path: file, with: unknownMode) } throws: { "\($0)".contains("verifier.offline.mode") }

        // MQTT: the file names the broker; the site turns it off (and on), unless the file says.
        let yaml = try String(contentsOfFile: file, encoding: .utf8)
        try (yaml + "mqtt: {url: \"mqtt://127.0.0.1:1883\"}\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try ConfigLoader.check(path: file, with: offline).daemon.mqtt == nil, "mqtt.enabled: false from the site")
        let on = try #require(SiteSettings(payload: Self.payload(10, #""mqtt.enabled":true"#)))
        #expect(try ConfigLoader.check(path: file, with: on).daemon.mqtt?.host == "127.0.0.1")
        try (yaml + "mqtt: {url: \"mqtt://127.0.0.1:1883\", enabled: true}\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try ConfigLoader.check(path: file, with: offline).daemon.mqtt != nil, "the file's own enabled wins")
    }

    @Test func aSiteKeyPinsTheSiteAndIsCheckedLikeAKey() throws {
        let key = "ed25519:" + Data(repeating: 5, count: 32).base64EncodedString()
        let door = "keypad: {driver: evdev, device: /dev/input/event3}\nstate_dir: /nonexistent/kp-\(UUID())\n"
        let pinned = try ConfigLoader.parse(yaml: door + "site: https://site.example:8787\nsite_key: \"\(key)\"\n", source: "door.yaml")
        #expect(pinned.siteKey == key && pinned.site == .unpaired(sites: ["https://site.example:8787"]))
        #expect { try ConfigLoader.parse(yaml: door + "site: https://site.example:8787\nsite_key: ed25519:short\n", source: "door.yaml") } throws: {
            "\($0)".contains("site_key: must be ed25519:")
        }
        #expect { try ConfigLoader.parse(yaml: door + "site_key: \"\(key)\"\nverifier: {kind: demo}\n", source: "door.yaml") } throws: {
            "\($0)".contains("site_key: pins the site a door is adopted by, so it needs site: beside it")
        }
    }
}
