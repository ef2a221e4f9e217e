import DoorConfig
import Foundation
import KioskPadConfig
import Testing

/// Config problems are one short, safe line each, whatever the file contains.
@Suite("Config messages: escaped, short, useful")
struct ConfigMessagesTests {
    func problems(_ yaml: String, environment: [String: String] = [:]) -> [String] {
        configProblems(yaml, environment: environment)
    }

    @Test func controlCharactersFromTheFileAreEscaped() {
        let found = problems("terminal_id: \"door\\e[2J\\e]0;owned\\a\"\nentry:\n  \"max\\nlength\": 6\nverifier:\n  kind: demo\n")
        #expect(found.count == 2)
        for line in found {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(line.debugDescription)")
        }
        #expect(found.contains { $0.hasPrefix("terminal_id: 'door\\u{1B}[2J\\u{1B}]0;owned\\u{7}' must be") })
        #expect(found.contains { $0.hasPrefix("entry.max\\nlength: unknown key") })
    }

    @Test func aHugeValueIsCutAndItsLengthGiven() {
        let huge = String(repeating: "x", count: 10 * 1024 * 1024)
        let found = problems("terminal_id: \(huge)\nverifier:\n  kind: demo\n")
        #expect(found.count == 1)
        #expect(found[0].count < 300)
        #expect(found[0].contains("...' (10485760 characters) must be"))
    }

    @Test func anIncompleteOutputNamesWhatIsMissingAndNoEmptyKeyList() {
        let found = problems("verifier:\n  kind: demo\ndoor:\n  relay: {chip: x}\n")
        #expect(found == ["door.relay: needs chip and line, e.g. {chip: gpiochip0, line: 26} (test.yaml:4)"])
        let typo = problems("verifier:\n  kind: demo\ndoor:\n  relay: {chip: x, line: 3, actve_low: true}\n")
        #expect(typo.count == 1)
        #expect(typo[0].hasPrefix("door.relay.actve_low: unknown key; did you mean 'active_low'? Valid keys here: active_low, chip, line"))
        #expect(!(typo + found).contains { $0.contains("Valid keys here: (") || $0.hasSuffix("Valid keys here: ") })
    }

    @Test func aChallengeTextWithoutTheCodeIsRefused() {
        let found = problems("verifier:\n  kind: demo\nentry:\n  challenge: before_pin\ndisplay:\n  texts:\n    challenge: \"Type the code\"\n")
        #expect(found.contains { $0.hasPrefix("display.texts.challenge: must contain {code} while entry.challenge is on") })
        #expect(problems("verifier:\n  kind: demo\nentry:\n  challenge: before_pin\ndisplay:\n  texts:\n    challenge: \"Type {code}\"\n").isEmpty)
        #expect(problems("verifier:\n  kind: demo\ndisplay:\n  texts:\n    challenge: \"unused\"\n").isEmpty)
    }

    @Test func aSettingOfAnotherVerifierKindIsNamedAsSuch() {
        let found = problems("verifier:\n  kind: demo\n", environment: ["KIOSKPAD__VERIFIER__URL": "https://v.example/verify"])
        #expect(found == ["verifier.url: is only used with kind: http; this verifier is kind: demo (environment KIOSKPAD__VERIFIER__URL)"])
        let local = problems("verifier:\n  kind: local\n  users_file: users\n  timeout_s: 2\n")
        #expect(local.count == 1)
        #expect(local[0].hasPrefix("verifier.timeout_s: is only used with kind: http; this verifier is kind: local (test.yaml:4)"))
    }

    @Test func aFileFullOfStrayKeysListsTheFirstHundredThenCountsTheRest() {
        let keys = (0..<5_000).map { "  max_lenght\($0): 1\n" }.joined()
        let found = problems("verifier:\n  kind: demo\nentry:\n  max_lenght: 6\n" + keys)
        #expect(found.count == 101)
        #expect(found.filter { $0.contains("did you mean") }.count == 100)
        #expect(found[0].hasPrefix("entry.max_lenght: unknown key; did you mean 'max_length'?"))
        #expect(found[100].hasPrefix("entry: 4901 more unknown keys, from 'max_lenght99' to 'max_lenght4999', not listed one by one (test.yaml:"))
    }

    @Test func aFileOverOneMebibyteIsRefusedBeforeParsing() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kp-huge-\(UUID()).yaml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let keys = (0..<100_000).map { "  stray_key_\($0): 1\n" }.joined()
        try ("verifier:\n  kind: demo\nentry:\n" + keys).write(toFile: path, atomically: true, encoding: .utf8)
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.load(path: path, environment: [:]) }
        #expect(error.problems.count == 1)
        #expect(error.description.contains("more than the 1048576 a config may have"))
    }
}
