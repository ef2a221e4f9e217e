import DoorAssembly
import DoorConfig
import DoorServices
import KioskPadConfig
import Testing

@Suite("The one unlock clamp")
struct UnlockClampTests {
    @Test func theTighterOfTheDoorAndVerifierMaximumsWins() throws {
        let relay = OutputLineConfiguration(chip: "gpiochip0", line: .offset(26))
        let door = DoorConfiguration(relay: relay, unlock: .seconds(5), maxUnlock: .seconds(30))
        let http = { (seconds: Int) in VerifierConfiguration.http(HTTPVerifierConfiguration(url: "http://127.0.0.1:8787/verify", maxUnlockSeconds: seconds)) }
        #expect(DaemonServices.maxUnlock(door: door, verifier: http(10)) == .seconds(10))
        #expect(DaemonServices.maxUnlock(door: door, verifier: http(60)) == .seconds(30))
        #expect(DaemonServices.maxUnlock(door: door, verifier: .demo) == .seconds(30))
    }
}
