import DoorConfig
import KioskPadConfig
import Testing

@Suite("Config: OSDP readers")
struct OSDPConfigTests {
    @Test func aLineWithTwoReadersReadsWithDefaultsAndKeyFilesBesideTheConfig() throws {
        let configuration = try ConfigLoader.parse(
            yaml: """
                verifier: {kind: demo}
                keypad:
                  driver: osdp
                  device: /dev/serial/by-id/usb-FTDI-if00-port0
                  readers: [{address: 1, scbk_file: reader1.scbk}, {address: 2}]
                """, source: "t", baseDirectory: "/etc/kioskpad")
        let osdp = try #require(configuration.keypad.osdp)
        #expect(configuration.keypad.driver == .osdp)
        #expect(osdp.device == "/dev/serial/by-id/usb-FTDI-if00-port0" && osdp.baud == 9600)
        #expect(
            osdp.readers == [OSDPReaderConfiguration(address: 1, scbkFile: "/etc/kioskpad/reader1.scbk"), OSDPReaderConfiguration(address: 2, scbkFile: nil)])
        #expect(osdp.pollInterval == .milliseconds(50) && osdp.offlineAfter == .seconds(8))
    }

    @Test func mistakesNameTheKeyAndWhatIsValid() {
        let found = configProblems(
            """
            verifier: {kind: demo}
            keypad: {driver: osdp, device: ttyUSB0, baud: 115201, readers: [{address: 127}, {address: 3, scbk: x}, {scbk_file: k}], poll_ms: 5}
            """)
        #expect(found.contains { $0.hasPrefix("keypad.device: 'ttyUSB0' is not a path") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("keypad.baud: 115201 is not an OSDP speed; valid: 9600, 19200, 38400, 57600, 115200, 230400") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("keypad.readers[0].address:") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("keypad.readers[1].scbk:") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("keypad.readers[2].address: is required") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("keypad.poll_ms:") }, "\(found)")
        let missing = configProblems("verifier: {kind: demo}\nkeypad: {driver: osdp}\n")
        #expect(missing.contains { $0.hasPrefix("keypad.device: is required with driver: osdp") }, "\(missing)")
        #expect(missing.contains { $0.hasPrefix("keypad.readers: is required with driver: osdp") }, "\(missing)")
        let twice = configProblems("verifier: {kind: demo}\nkeypad: {driver: osdp, device: /dev/ttyUSB0, readers: [{address: 1}, {address: 1}]}\n")
        #expect(twice.contains { $0.hasPrefix("keypad.readers[1].address: 1 is used by another reader") }, "\(twice)")
        let stray = configProblems("verifier: {kind: demo}\nkeypad: {driver: evdev, device: /dev/input/event0, baud: 9600}\n")
        #expect(stray.contains { $0.hasPrefix("keypad.baud: is only used with driver: osdp") }, "\(stray)")
    }
}
