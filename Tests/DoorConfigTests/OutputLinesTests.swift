import DoorConfig
import KioskPadConfig
import Testing

@Suite("Outputs that door off switches")
struct OutputLinesTests {
    @Test func theRelayComesFirstThenEveryFeedbackOutput() {
        let line = { (n: Int) in OutputLineConfiguration(chip: "gpiochip0", line: .offset(n)) }
        var daemon = DaemonConfiguration(
            door: DoorConfiguration(relay: line(26), unlock: .seconds(5), maxUnlock: .seconds(30)),
            feedback: FeedbackConfiguration(buzzer: line(18), grantedLED: nil, deniedLED: line(24)))
        #expect(daemon.outputLines.map(\.key) == ["door.relay", "feedback.buzzer", "feedback.led_denied"])
        #expect(daemon.outputLines.map(\.line) == [line(26), line(18), line(24)])
        daemon.door = nil
        daemon.feedback = nil
        #expect(daemon.outputLines.isEmpty)
    }
}
