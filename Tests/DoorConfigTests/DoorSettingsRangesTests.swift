import DoorConfig
import Foundation
import KioskPadConfig
import SiteCore
import Testing

/// The site holds each setting it gives to the range the door's own config checker holds it
/// to (`DoorSettings.ranges` and `choices`): every bound is accepted by the door, and a step
/// past it refused by both, naming the key (issue 79).
@Suite("Config: the site's ranges for door settings are the door's")
struct DoorSettingsRangesTests {
    /// An adopted door whose file has every section a site setting may go into, and none of
    /// their keys (so the site's values are the ones read).
    func door() throws -> (URL, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-ranges-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n".write(to: directory.appendingPathComponent("site.secret"), atomically: true, encoding: .utf8)
        let key = "ed25519:" + Data(repeating: 7, count: 32).base64EncodedString()
        try "{\"site\":\"https://site.example:8787\",\"terminal_id\":\"front-door\",\"replica_public_key\":\"\(key)\"}".write(
            to: directory.appendingPathComponent("site.json"), atomically: true, encoding: .utf8)
        let yaml = """
            site: https://site.example:8787
            state_dir: \(directory.path)
            keypad: {driver: evdev, device: /dev/input/event3}
            display: {driver: hd44780}
            door:
              relay: {chip: gpiochip0, line: 26}

            """
        let file = directory.appendingPathComponent("door.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        return (directory, file.path)
    }

    /// `key` at `value`, with what it is paired with set beside it so the pair is in order.
    func settings(_ key: String, _ value: String, version: Int) -> SiteSettings? {
        var values = ["\"\(key)\":\(value)"]
        let partners = [
            "entry.min_length": "entry.max_length", "entry.max_length": "entry.min_length", "lockout.lockout_s": "lockout.max_lockout_s",
            "lockout.max_lockout_s": "lockout.lockout_s", "door.unlock_s": "door.max_unlock_s", "door.max_unlock_s": "door.unlock_s",
        ]
        if let partner = partners[key], let range = DoorSettings.ranges[partner] {
            values.append("\"\(partner)\":\(Self.text(min(max(Double(value) ?? 0, range.lowerBound), range.upperBound)))")
        }
        if key.hasPrefix("verifier.offline."), key != "verifier.offline.mode" { values.append("\"verifier.offline.mode\":\"fallback\"") }
        return SiteSettings(
            payload: "{\"kind\":\"settings\",\"settings\":{\(values.joined(separator: ","))},\"terminal_id\":\"front-door\",\"version\":\(version)}")
    }

    static func text(_ number: Double) -> String {
        number == number.rounded() ? String(Int64(number)) : String(number)
    }

    @Test func everyBoundIsTheDoors() throws {
        let (directory, file) = try door()
        defer { try? FileManager.default.removeItem(at: directory) }
        var version = 1
        for (key, range) in DoorSettings.ranges.sorted(by: { $0.key < $1.key }) {
            // Whole numbers step by one; seconds by half a second.
            let step = DoorSettings.keys[key] == .integer ? 1.0 : 0.5
            for (value, accepted) in [(range.lowerBound, true), (range.upperBound, true), (range.lowerBound - step, false), (range.upperBound + step, false)] {
                version += 1
                let given = try #require(settings(key, Self.text(value), version: version), "\(key)=\(value)")
                var doorRefusal: String?
                do {
                    _ = try ConfigLoader.check(path: file, with: given)
                } catch {
                    doorRefusal = "\(error)"
                }
                var siteRefusal: String?
                do {
                    _ = try DoorSettings.parse("\(key)=\(Self.text(value))")
                } catch {
                    siteRefusal = "\(error)"
                }
                #expect((doorRefusal == nil) == accepted, "the door at \(key)=\(value): \(doorRefusal ?? "accepted")")
                #expect((siteRefusal == nil) == accepted, "the site at \(key)=\(value): \(siteRefusal ?? "accepted")")
                if let doorRefusal, !accepted { #expect(doorRefusal.contains(key), "\(doorRefusal)") }
            }
        }
    }

    @Test func everyChoiceIsTheDoors() throws {
        let (directory, file) = try door()
        defer { try? FileManager.default.removeItem(at: directory) }
        var version = 1
        for (key, words) in DoorSettings.choices.sorted(by: { $0.key < $1.key }) {
            for word in words + ["sometimes"] {
                version += 1
                let given = try #require(settings(key, "\"\(word)\"", version: version))
                let doorTakes = (try? ConfigLoader.check(path: file, with: given)) != nil
                let siteTakes = (try? DoorSettings.parse("\(key)=\(word)")) != nil
                #expect(doorTakes == words.contains(word) && siteTakes == doorTakes, "\(key)=\(word): door \(doorTakes), site \(siteTakes)")
            }
        }
    }
}
