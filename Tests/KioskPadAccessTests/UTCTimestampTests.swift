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

/// The ICU-free RFC 3339 reader (every `/verify` reads an `entered_at`) against fixed texts
/// and against Foundation's ISO8601DateFormatter over a spread of instants and offsets.
@Suite("Reading RFC 3339 timestamps")
struct UTCTimestampParsingTests {
    @Test(arguments: [
        ("1970-01-01T00:00:00Z", 0.0),
        ("2000-02-29T00:00:00.5Z", 951_782_400.5),
        ("2025-11-25T23:23:38.987Z", 1_764_113_018.987),
        ("1969-12-31T23:59:59z", -1.0),
        ("2026-11-20t11:00:00+01:00", 1_795_168_800.0),
        ("2026-11-20T04:30:00-05:30", 1_795_168_800.0),
        ("2026-11-20T10:00:00.123456789Z", 1_795_168_800.123456789),
    ])
    func readsKnownTexts(text: String, seconds: Double) throws {
        let date = try #require(UTCTimestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001, "\(text)")
    }

    @Test(arguments: [
        "", "2026-11-20", "2026-11-20T10:00:00", "2026-11-20 10:00:00Z", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
        "2026-04-31T00:00:00Z", "2026-11-20T24:00:00Z", "2026-11-20T10:60:00Z", "2026-11-20T10:00:60Z", "2026-11-20T10:00:00.Z",
        "2026-11-20T10:00:00+0100", "2026-11-20T10:00:00+24:00", "2026-11-20T10:00:00Zjunk", "26-11-20T10:00:00Z",
        "2026-1-20T10:00:00Z", "２０２６-11-20T10:00:00Z", "2026-11-20T10:00:00 Z",
    ])
    func refusesWhatIsNotOne(text: String) {
        #expect(UTCTimestamp.parse(text) == nil, "\(text)")
    }

    @Test func agreesWithFoundationsReader() throws {
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var generator = SystemRandomNumberGenerator()
        let offsets = [0, 3600, -18_000, 19_800, -34_200, 50_400]
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: -2_208_988_800_000...7_258_118_400_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let offset = offsets.randomElement(using: &generator)!
            fractional.timeZone = TimeZone(secondsFromGMT: offset)
            let text = fractional.string(from: date)
            let ours = try #require(UTCTimestamp.parse(text), "\(text)")
            let theirs = try #require(fractional.date(from: text), "\(text)")
            #expect(abs(ours.timeIntervalSince1970 - theirs.timeIntervalSince1970) < 0.000_5, "\(text)")
            #expect(abs(ours.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_5, "\(text)")
        }
    }
}
