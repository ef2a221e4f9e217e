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
}
