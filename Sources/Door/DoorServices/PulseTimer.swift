import Foundation
import KioskPadCore

/// Runs a door relay's end of pulse at a deadline on the system clock, on a thread of its own
/// that sleeps until then (checked against the clock after every wake, so an early wake
/// sleeps again): the relay's open time does not wait for Swift's cooperative threads.
/// One short-lived thread per pulse; it holds no lock while it sleeps.
enum PulseTimer {
    static func fire(at deadline: Duration, on clock: TerminalClock, _ action: @escaping @Sendable () -> Void) {
        let thread = Thread {
            while true {
                let left = deadline - clock.now
                if left <= .zero { break }
                Thread.sleep(forTimeInterval: left.timeInterval)
            }
            action()
        }
        thread.name = "kioskpad-relay-pulse"
        thread.start()
    }
}
