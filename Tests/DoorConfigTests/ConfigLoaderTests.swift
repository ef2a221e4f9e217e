import DoorConfig
import Foundation
import KioskPadConfig
import KioskPadCore
import Testing

/// The repository root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The problems `ConfigLoader.parse` reports for `yaml` (source `test.yaml`), as printed.
func configProblems(_ yaml: String, environment: [String: String] = [:]) -> [String] {
    do {
        _ = try ConfigLoader.parse(yaml: yaml, source: "test.yaml", environment: environment)
        return []
    } catch let error as ConfigError {
        return error.problems.map(\.description)
    } catch {
        return ["unexpected: \(error)"]
    }
}

@Suite("Config loader")
struct ConfigLoaderTests {
    let minimal = "verifier:\n  kind: demo\n"

    func problems(_ yaml: String, environment: [String: String] = [:]) -> [String] {
        configProblems(yaml, environment: environment)
    }

    @Test(arguments: ["simulate.yaml", "pi-4x4-lcd1602.yaml"])
    func shippedConfigsValidate(name: String) throws {
        let path = repositoryRoot.appendingPathComponent("config/\(name)").path
        let configuration = try ConfigLoader.load(path: path, environment: [:])
        #expect(!configuration.terminalID.isEmpty)
    }

    @Test func piConfigDescribesAGPIOKeypadAndAnI2CLCD() throws {
        let path = repositoryRoot.appendingPathComponent("config/pi-4x4-lcd1602.yaml").path
        let configuration = try ConfigLoader.load(path: path, environment: [:])
        let gpio = try #require(configuration.keypad.gpio)
        #expect(gpio.rows == [.offset(5), .offset(6), .offset(13), .offset(19)])
        #expect(gpio.keys == Array("123A456B789C*0#D"))
        #expect(configuration.display.driver == .hd44780)
        #expect(configuration.display.i2c == I2CDisplayConfiguration(bus: 1, address: 0x27, backlight: true))
        #expect(configuration.display.geometry == .lcd1602)
        #expect(configuration.verifier == .local(usersFile: "/etc/kioskpad/users"))
    }

    @Test func defaultsAreTheContractDefaults() throws {
        let configuration = try ConfigLoader.parse(yaml: minimal, source: "t")
        #expect(configuration.entry == EntryOptions())
        #expect(configuration.keypad.driver == .terminal)
    }

    @Test func outOfRangeValuesNameTheKeyAndTheValidRange() {
        #expect(problems(minimal + "entry:\n  max_length: 13\n") == ["entry.max_length: 13 is out of range 4...12 (test.yaml:4)"])
    }

    @Test func typosAreUnknownKeysWithASuggestion() {
        let found = problems(minimal + "entry:\n  max_lenght: 6\n")
        #expect(found.count == 1)
        #expect(found[0].hasPrefix("entry.max_lenght: unknown key; did you mean 'max_length'?"))
        #expect(problems(minimal + "displya:\n  driver: plain\n").first?.hasPrefix("displya: unknown key; did you mean 'display'?") == true)
    }

    @Test func wrongTypesAreReported() {
        let found = problems(minimal + "entry:\n  end_key_required: maybe\n  mode: masked\n  min_length: four\n")
        #expect(found.contains { $0.hasPrefix("entry.end_key_required: 'maybe' is not true or false") })
        #expect(found.contains { $0.hasPrefix("entry.mode: 'masked' is not one of: pin, code") })
        #expect(found.contains { $0.hasPrefix("entry.min_length: 'four' is not a whole number; valid: 4...12") })
    }

    @Test func everyProblemIsReportedNotJustTheFirst() {
        #expect(problems("entry:\n  min_length: 2\nlockout:\n  max_failures: 0\n").count == 3)
    }

    @Test func theVerifierMustBeChosenExplicitly() {
        #expect(problems("terminal_id: door\n").first?.hasPrefix("verifier: is required") == true)
        #expect(problems("verifier:\n  kind: local\n").first?.hasPrefix("verifier.users_file: is required") == true)
    }

    @Test func crossFieldRulesAreChecked() {
        #expect(problems(minimal + "entry:\n  min_length: 6\n  max_length: 4\n").first?.hasPrefix("entry.min_length: 6 is more than max_length 4") == true)
        #expect(problems(minimal + "entry:\n  back_keys: \"#\"\n").first?.contains("key '#' is in both end_keys and back_keys") == true)
        #expect(problems(minimal + "entry:\n  allowed_keys: \"0123A\"\n").first?.hasPrefix("entry.allowed_keys: 'A' is not a digit") == true)
        #expect(problems(minimal + "entry:\n  max_length: 6\n  end_keys: \"\"\n").first?.hasPrefix("entry.end_keys: is empty") == true)
    }

    @Test func gpioKeypadWiringIsValidated() {
        let found = problems(minimal + "keypad:\n  driver: gpio\n  chip: gpiochip0\n  rows: [1, 2, 3]\n  columns: [4, 5, 3]\n  keys: \"123\"\n")
        #expect(found.contains { $0.hasPrefix("keypad.columns: line 3 is used twice") })
        #expect(found.contains { $0.hasPrefix("keypad.keys: has 3 labels but the matrix has 3x3 = 9 keys") })
        #expect(problems(minimal + "keypad:\n  rows: [1]\n").first?.hasPrefix("keypad.rows: is only used with driver: gpio") == true)
        #expect(
            problems(minimal + "keypad:\n  driver: gpio\n  rows: [1]\n  columns: [2]\n  keys: \"1\"\n").first?.hasPrefix("keypad.chip: is required") == true)
    }

    @Test func lineNamesAndOffsetsMix() throws {
        let configuration = try ConfigLoader.parse(
            yaml: minimal + "keypad:\n  driver: gpio\n  chip: keypad-sim\n  rows: [ROW0, 1]\n  columns: [COL0, 3]\n  keys: \"1234\"\n", source: "t")
        #expect(configuration.keypad.gpio?.rows == [.name("ROW0"), .offset(1)])
    }

    @Test(arguments: [("0x3f", 0x3F), ("\"0x27\"", 0x27), ("39", 39)])
    func i2cAddressesAcceptHexOrDecimal(text: String, value: Int) throws {
        let configuration = try ConfigLoader.parse(yaml: minimal + "display:\n  driver: hd44780\n  i2c_address: \(text)\n", source: "t")
        #expect(configuration.display.i2c?.address == value)
    }

    @Test func pinMapsMustUseEightDistinctPins() {
        let yaml = minimal + "display:\n  driver: hd44780\n  pin_map:\n    rs: 0\n    rw: 0\n    e: 9\n"
        let found = problems(yaml)
        #expect(found.contains { $0.hasPrefix("display.pin_map.e: 9 is out of range 0...7") })
        #expect(found.contains { $0.hasPrefix("display.pin_map: every signal needs its own PCF8574 pin") })
        #expect(
            problems(minimal + "display:\n  driver: hd44780\n  pin_map: {rs: 0, enable: 2}\n").first?.hasPrefix("display.pin_map.enable: unknown key") == true)
        #expect(problems(minimal + "display:\n  pin_map: {rs: 0}\n").first?.hasPrefix("display.pin_map: is only used with driver: hd44780") == true)
    }

    @Test func maskGlyphIsCharOrDot() throws {
        #expect(try ConfigLoader.parse(yaml: minimal + "display:\n  mask_glyph: dot\n", source: "t").display.maskGlyph == .dot)
        #expect(problems(minimal + "display:\n  mask_glyph: star\n").first?.hasPrefix("display.mask_glyph: 'star' is not one of: char, dot") == true)
    }

    @Test func hd44780OnlyComesIn16x2And20x4() {
        #expect(problems(minimal + "display:\n  driver: hd44780\n  columns: 24\n  rows: 2\n").first?.contains("24x2 is not a supported HD44780 size") == true)
    }

    @Test func environmentVariablesOverrideKeysAndAreChecked() throws {
        let configuration = try ConfigLoader.parse(
            yaml: minimal, source: "t", environment: ["KIOSKPAD__ENTRY__MAX_LENGTH": "6", "KIOSKPAD__TERMINAL_ID": "door-7"])
        #expect(configuration.entry.maxLength == 6)
        #expect(configuration.terminalID == "door-7")
        #expect(
            problems(minimal, environment: ["KIOSKPAD__ENTRY__MAX_LENGTH": "20"]) == [
                "entry.max_length: 20 is out of range 4...12 (environment KIOSKPAD__ENTRY__MAX_LENGTH)"
            ])
        #expect(problems(minimal, environment: ["KIOSKPAD__ENTRY__MAXLEN": "6"]).first?.hasPrefix("entry.maxlen: unknown key") == true)
    }

    @Test func invalidYAMLIsAProblemNotACrash() {
        #expect(problems("entry: [\n").first?.hasPrefix("not valid YAML") == true)
        #expect(problems("- just\n- a list\n").first?.contains("must be a mapping") == true)
    }
}
