import Foundation
import KioskPadStorage
import Testing

/// The ICU-free RFC 3339 formatter against fixed instants and against Foundation's
/// ISO8601DateFormatter (which it replaces on the door's paths) over a spread of instants.
@Suite("UTC RFC 3339 timestamps")
struct UTCTimestampTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000Z"),
        (951_782_400.5, "2000-02-29T00:00:00Z", "2000-02-29T00:00:00.500Z"),
        (1_764_113_018.987, "2025-11-25T23:23:38Z", "2025-11-25T23:23:38.987Z"),
        (-1.0, "1969-12-31T23:59:59Z", "1969-12-31T23:59:59.000Z"),
        (4_107_542_399.999, "2100-02-28T23:59:59Z", "2100-02-28T23:59:59.999Z"),
    ])
    func knownInstants(seconds: Double, plain: String, withMilliseconds: String) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(UTCTimestamp.rfc3339(date) == plain)
        #expect(UTCTimestamp.rfc3339(date, milliseconds: true) == withMilliseconds)
    }

    @Test func agreesWithFoundationsFormatter() {
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var generator = SystemRandomNumberGenerator()
        // Whole milliseconds from 1900 to 2200, so both sides see the same instant exactly.
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: -2_208_988_800_000...7_258_118_400_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            #expect(UTCTimestamp.rfc3339(date) == plain.string(from: date), "\(milliseconds) ms")
            #expect(UTCTimestamp.rfc3339(date, milliseconds: true) == fractional.string(from: date), "\(milliseconds) ms")
        }
    }
}
