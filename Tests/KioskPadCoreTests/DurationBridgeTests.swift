import KioskPadCore
import Testing

/// The one Duration bridge keeps whole seconds in every unit (a conversion that read only
/// the attoseconds lost them) and rounds the way each name says.
@Suite("Duration bridge")
struct DurationBridgeTests {
    @Test(arguments: [
        (Duration.milliseconds(2_500), 2_500, 2_500, Int64(2_500_000_000), 2, 3, 2.5),
        (.seconds(3), 3_000, 3_000, 3_000_000_000, 3, 3, 3.0),
        (.nanoseconds(1_000_000_001), 1_000, 1_001, 1_000_000_001, 1, 2, 1.000000001),
        (.microseconds(500), 0, 1, 500_000, 0, 1, 0.0005),
        (.zero, 0, 0, 0, 0, 0, 0.0),
    ])
    func conversions(duration: Duration, ms: Int, upMs: Int, ns: Int64, seconds: Int, upSeconds: Int, interval: Double) {
        #expect(duration.wholeMilliseconds == ms)
        #expect(duration.roundedUpMilliseconds == upMs)
        #expect(duration.wholeNanoseconds == ns)
        #expect(duration.wholeSeconds == seconds)
        #expect(duration.roundedUpSeconds == upSeconds)
        #expect(abs(duration.timeInterval - interval) < 1e-9)
        #expect(duration.secondsAndNanoseconds.seconds == seconds)
        #expect(duration.secondsAndNanoseconds.nanoseconds == Int(ns - Int64(seconds) * 1_000_000_000))
    }
}
