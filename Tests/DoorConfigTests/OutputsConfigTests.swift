import DoorConfig
import Foundation
import KioskPadConfig
import Testing

/// `kioskpad door off` reads only the outputs, so that a mistake elsewhere cannot keep the
/// door relay from being switched off after a crash.
@Suite("Config: outputs only")
struct OutputsConfigTests {
    func write(_ yaml: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kp-outputs-\(UUID().uuidString).yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func problemsOutsideDoorAndFeedbackDoNotStopIt() throws {
        let path = try write(
            """
            entry:
              max_lenght: 6
            verifier:
              kind: nonsense
            door:
              relay: {chip: gpiochip0, line: 26}
            feedback:
              buzzer: {chip: gpiochip0, line: RELAY_BUZZER, active_low: true}
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ConfigError.self) { try ConfigLoader.load(path: path, environment: [:]) }
        let outputs = try ConfigLoader.loadOutputs(path: path, environment: [:])
        #expect(outputs.door?.relay == OutputLineConfiguration(chip: "gpiochip0", line: .offset(26), activeLow: false))
        #expect(outputs.feedback?.buzzer == OutputLineConfiguration(chip: "gpiochip0", line: .name("RELAY_BUZZER"), activeLow: true))
    }

    @Test func aBrokenRelaySettingIsStillAnErrorNamingTheKey() throws {
        let path = try write("door:\n  relay: {chip: gpiochip0, line: -3}\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.loadOutputs(path: path, environment: [:]) }
        #expect(error.problems.map(\.path) == ["door.relay.line"])
    }

    @Test func environmentOverridesApplyToTheOutputs() throws {
        let path = try write("door:\n  relay: {chip: gpiochip0, line: 26}\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let outputs = try ConfigLoader.loadOutputs(path: path, environment: ["KIOSKPAD__DOOR__UNLOCK_S": "7"])
        #expect(outputs.door?.unlock == .seconds(7))
    }
}
