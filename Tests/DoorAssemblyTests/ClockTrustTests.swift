import DoorAssembly
import DoorConfig
import DoorServices
import Foundation
import KioskPadConfig
import Testing

/// `clock.trust`: when the terminal's wall clock counts for a local verifier's rules, the
/// config key that sets it, and what `/healthz` says while it does not count.
@Suite("Clock trust")
struct ClockTrustTests {
    @Test func synchronisedTrustsTheKernelsWordAndRTCAlwaysTrusts() {
        #expect(KernelClock.trusted(rtc: false, synchronised: { true }))
        #expect(!KernelClock.trusted(rtc: false, synchronised: { false }))
        #expect(KernelClock.trusted(rtc: true, synchronised: { false }))
        #expect(KernelClock.problem(rtc: false, synchronised: { true }) == nil)
        #expect(KernelClock.problem(rtc: false, synchronised: { false })?.contains("users with a schedule or validity are denied") == true)
    }

    @Test func healthzSaysWhyTheClockDoesNotCountWithoutFailingTheTerminal() {
        let untrusted = HealthState(clockProblem: { KernelClock.problem(rtc: false, synchronised: { false }) })
        #expect(untrusted.healthy)
        #expect(
            untrusted.summary
                == "keypad ok, verifier ok; clock not trusted (the kernel reports it unsynchronised; clock.trust: synchronised): users with a schedule or validity are denied"
        )
        #expect(HealthState().summary == "keypad ok, verifier ok")
    }

    @Test func theConfigKeyDefaultsToSynchronisedAndNamesWhatIsValid() throws {
        #expect(try ConfigLoader.parse(yaml: "verifier: {kind: demo}\n", source: "t.yaml").daemon.clockTrust == .synchronised)
        #expect(try ConfigLoader.parse(yaml: "verifier: {kind: demo}\nclock: {trust: rtc}\n", source: "t.yaml").daemon.clockTrust == .rtc)
        #expect {
            try ConfigLoader.parse(yaml: "verifier: {kind: demo}\nclock: {trust: gps}\n", source: "t.yaml")
        } throws: { error in
            "\(error)".contains("clock.trust") && "\(error)".contains("synchronised, rtc")
        }
    }
}

/// `events.heartbeat_s`: how often a forwarding terminal journals its `status`.
@Suite("Events heartbeat config")
struct EventsHeartbeatConfigTests {
    @Test func theHeartbeatIsFiveMinutesUnlessSetAndNamesItsRange() throws {
        let base = "verifier: {kind: demo}\nevents:\n  url: http://127.0.0.1:8787/v1/events\n"
        #expect(try ConfigLoader.parse(yaml: base, source: "t.yaml").daemon.events?.heartbeat == .seconds(300))
        #expect(try ConfigLoader.parse(yaml: base + "  heartbeat_s: 60\n", source: "t.yaml").daemon.events?.heartbeat == .seconds(60))
        #expect {
            try ConfigLoader.parse(yaml: base + "  heartbeat_s: 1\n", source: "t.yaml")
        } throws: { error in
            "\(error)".contains("events.heartbeat_s")
        }
    }
}
