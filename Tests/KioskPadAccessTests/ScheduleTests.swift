import Foundation
import KioskPadAccess
import Testing

/// Schedules in virtual time: the parser, every weekday boundary, windows that cross
/// midnight, both DST changes of two zones, a leap day, and specs that name their bad part.
@Suite("Schedules")
struct ScheduleTests {
    /// A minute of the week: day 0 is Monday.
    func minute(_ day: Int, _ hour: Int, _ minute: Int) -> Int { day * 1440 + hour * 60 + minute }

    /// The instant of an ISO 8601 UTC time.
    func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test func weekdayWindowsStartAtTheirFirstMinuteAndEndBeforeTheirLast() throws {
        let schedule = try WeeklySchedule(parsing: "mon-fri 09:00-17:00")
        for day in 0..<7 {
            let workday = day < 5
            #expect(schedule.contains(minuteOfWeek: minute(day, 9, 0)) == workday, "day \(day) 09:00")
            #expect(schedule.contains(minuteOfWeek: minute(day, 16, 59)) == workday, "day \(day) 16:59")
            #expect(!schedule.contains(minuteOfWeek: minute(day, 8, 59)), "day \(day) 08:59")
            #expect(!schedule.contains(minuteOfWeek: minute(day, 17, 0)), "day \(day) 17:00")
        }
    }

    @Test func severalPartsListsAndWrappedRanges() throws {
        let schedule = try WeeklySchedule(parsing: "mon-fri 18:00-21:00; sat 08:00-12:00, 14:00-15:00; sun,wed 00:00-24:00")
        #expect(schedule.contains(minuteOfWeek: minute(0, 18, 0)) && !schedule.contains(minuteOfWeek: minute(0, 21, 0)))
        #expect(schedule.contains(minuteOfWeek: minute(5, 11, 59)) && !schedule.contains(minuteOfWeek: minute(5, 12, 0)))
        #expect(schedule.contains(minuteOfWeek: minute(5, 14, 30)) && !schedule.contains(minuteOfWeek: minute(5, 13, 0)))
        #expect(schedule.contains(minuteOfWeek: minute(6, 0, 0)) && schedule.contains(minuteOfWeek: minute(6, 23, 59)))
        #expect(schedule.contains(minuteOfWeek: minute(2, 3, 0)) && !schedule.contains(minuteOfWeek: minute(3, 3, 0)))
        let weekend = try WeeklySchedule(parsing: "fri-mon 10:00-11:00")
        #expect((0..<7).filter { weekend.contains(minuteOfWeek: minute($0, 10, 30)) } == [0, 4, 5, 6])
        let allDay = try WeeklySchedule(parsing: "tue")
        #expect(allDay.contains(minuteOfWeek: minute(1, 0, 0)) && allDay.contains(minuteOfWeek: minute(1, 23, 59)))
        #expect(!allDay.contains(minuteOfWeek: minute(2, 0, 0)))
    }

    @Test func aWindowThatCrossesMidnightRunsIntoTheNextDayAndSundayIntoMonday() throws {
        let night = try WeeklySchedule(parsing: "fri 22:00-02:00")
        #expect(night.contains(minuteOfWeek: minute(4, 22, 0)))
        #expect(night.contains(minuteOfWeek: minute(5, 1, 59)))
        #expect(!night.contains(minuteOfWeek: minute(5, 2, 0)))
        #expect(!night.contains(minuteOfWeek: minute(4, 21, 59)))
        #expect(!night.contains(minuteOfWeek: minute(4, 1, 0)))
        let sunday = try WeeklySchedule(parsing: "sun 23:00-01:00")
        #expect(sunday.contains(minuteOfWeek: minute(0, 0, 30)) && !sunday.contains(minuteOfWeek: minute(0, 1, 0)))
        #expect(sunday.contains(minuteOfWeek: minute(6, 23, 30)) && !sunday.contains(minuteOfWeek: minute(6, 0, 30)))
    }

    @Test(arguments: [
        ("mon-fri 18:00-25:00", "part 1 (\"mon-fri 18:00-25:00\"): '25:00' is not an end time"),
        ("mon-fri 18:00-21:00; sat 08:00", "part 2 (\"sat 08:00\"): '08:00' is not a time range"),
        ("funday 10:00-11:00", "part 1 (\"funday 10:00-11:00\"): 'funday' is not a day"),
        ("mon 10:00-10:00", "'10:00-10:00' is empty"),
        ("mon-fri 18:00-21:00;", "part 2 (\"\"): is empty"),
        ("10:00-11:00", "names no days"),
        ("mon 24:00-02:00", "'24:00' is not a start time"),
        ("mon 9:00-10:00", "'9:00' is not a start time"),
        ("mon-tue-wed 09:00-10:00", "'mon-tue-wed' is not a day range"),
        ("", "the schedule is empty"),
    ])
    func aBadSpecIsRefusedNamingThePartThatIsWrong(spec: String, message: String) {
        #expect {
            _ = try WeeklySchedule(parsing: spec)
        } throws: { error in
            (error as? WeeklySchedule.SpecError)?.description.contains(message) == true
        }
    }

    /// Minutes of one UTC day (from `day` 00:00Z, 26 hours) that `schedule` admits in `zone`.
    func admittedMinutes(_ spec: String, zone: String, from day: String) throws -> Int {
        let rules = try CompiledSiteRules(SiteRules(timeZone: zone, schedules: ["s": spec], rules: ["u": AccessRule(schedule: "s")]))
        let start = utc(day)
        return (0..<(26 * 60)).filter { rules.refusal(user: "u", door: "d", at: start.addingTimeInterval(Double($0) * 60)) == nil }.count
    }

    @Test func europeBerlinSpringForwardSkipsTheHourAndFallBackRepeatsIt() throws {
        // 2026-03-29: 02:00 CET becomes 03:00 CEST; 2026-10-25: 03:00 CEST becomes 02:00 CET.
        #expect(try admittedMinutes("sun 02:00-03:00", zone: "Europe/Berlin", from: "2026-03-28T22:00:00Z") == 0)
        #expect(try admittedMinutes("sun 02:00-03:00", zone: "Europe/Berlin", from: "2026-10-24T22:00:00Z") == 120)
        #expect(try admittedMinutes("sun 02:00-03:00", zone: "Europe/Berlin", from: "2026-11-01T00:00:00Z") == 60)
        // A window across the change keeps its wall-clock ends: 01:00-04:00 is 2 real hours in spring, 4 in autumn.
        #expect(try admittedMinutes("sun 01:00-04:00", zone: "Europe/Berlin", from: "2026-03-28T22:00:00Z") == 120)
        #expect(try admittedMinutes("sun 01:00-04:00", zone: "Europe/Berlin", from: "2026-10-24T22:00:00Z") == 240)
    }

    @Test func americaNewYorkDecidesInWallClockTimeOnBothChanges() throws {
        // 2026-03-08: 02:00 EST becomes 03:00 EDT; 2026-11-01: 02:00 EDT becomes 01:00 EST.
        let rules = try CompiledSiteRules(
            SiteRules(timeZone: "America/New_York", schedules: ["open": "daily 08:00-09:00"], rules: ["u": AccessRule(schedule: "open")]))
        #expect(rules.refusal(user: "u", door: "d", at: utc("2026-03-07T13:00:00Z")) == nil)  // 08:00 EST
        #expect(rules.refusal(user: "u", door: "d", at: utc("2026-03-07T12:00:00Z")) == .outsideSchedule)
        #expect(rules.refusal(user: "u", door: "d", at: utc("2026-03-08T12:00:00Z")) == nil)  // 08:00 EDT
        #expect(rules.refusal(user: "u", door: "d", at: utc("2026-03-08T13:59:00Z")) == .outsideSchedule)
        #expect(rules.refusal(user: "u", door: "d", at: utc("2026-11-01T13:00:00Z")) == nil)  // 08:00 EST again
        #expect(rules.refusal(user: "u", door: "d", at: utc("2026-11-01T12:30:00Z")) == .outsideSchedule)
        #expect(try admittedMinutes("sun 01:00-02:00", zone: "America/New_York", from: "2026-11-01T04:00:00Z") == 120)
        #expect(try admittedMinutes("sun 02:00-02:30", zone: "America/New_York", from: "2026-03-08T04:00:00Z") == 0)
    }

    @Test func validityDatesCoverWholeDaysInTheSiteZoneAndALeapDayIsADay() throws {
        let berlin = try CompiledSiteRules(
            SiteRules(
                timeZone: "Europe/Berlin",
                rules: [
                    "u": AccessRule(validFrom: SiteDate(parsing: "2026-12-01"), validUntil: SiteDate(parsing: "2026-12-31")),
                    "t": AccessRule(validUntil: SiteDate(parsing: "2026-12-31T18:00")),
                ]))
        #expect(berlin.refusal(user: "u", door: "d", at: utc("2026-11-30T22:59:59Z")) == .notYetValid)
        #expect(berlin.refusal(user: "u", door: "d", at: utc("2026-11-30T23:00:00Z")) == nil)  // 00:00 CET
        #expect(berlin.refusal(user: "u", door: "d", at: utc("2026-12-31T22:59:59Z")) == nil)  // 23:59:59 CET
        #expect(berlin.refusal(user: "u", door: "d", at: utc("2026-12-31T23:00:00Z")) == .expired)
        #expect(berlin.refusal(user: "t", door: "d", at: utc("2026-12-31T16:59:00Z")) == nil)
        #expect(berlin.refusal(user: "t", door: "d", at: utc("2026-12-31T17:00:00Z")) == .expired)
        #expect(SiteDate(parsing: "2027-02-29") == nil && SiteDate(parsing: "2028-02-29") != nil && SiteDate(parsing: "2100-02-29") == nil)
        let leap = try CompiledSiteRules(
            SiteRules(
                timeZone: "UTC", schedules: ["tue": "tue"],
                rules: [
                    "u": AccessRule(schedule: "tue", validFrom: SiteDate(parsing: "2028-02-29"), validUntil: SiteDate(parsing: "2028-02-29"))
                ]))
        #expect(leap.refusal(user: "u", door: "d", at: utc("2028-02-28T23:59:00Z")) == .notYetValid)
        #expect(leap.refusal(user: "u", door: "d", at: utc("2028-02-29T00:00:00Z")) == nil)  // a Tuesday
        #expect(leap.refusal(user: "u", door: "d", at: utc("2028-02-29T23:59:59Z")) == nil)
        #expect(leap.refusal(user: "u", door: "d", at: utc("2028-03-01T00:00:00Z")) == .expired)
        for bad in ["2026-13-01", "2026-12-32", "26-12-01", "2026-12-01T25:00", "2026-12-01T18", "tomorrow"] {
            #expect(SiteDate(parsing: bad) == nil, "\(bad)")
        }
        #expect(SiteDate(parsing: "2026-12-31 18:05")?.description == "2026-12-31T18:05")
    }

    @Test func theOrderIsDisabledThenDoorThenClockThenValidityThenSchedule() throws {
        let rule = AccessRule(doors: ["front"], schedule: "never", validUntil: SiteDate(parsing: "2000-01-01"), disabled: true)
        let never = try WeeklySchedule(parsing: "mon 00:00-00:01")
        let now = SiteTime(Date(timeIntervalSince1970: 1_800_000_000), in: TimeZone(identifier: "UTC")!)
        #expect(AccessEvaluator.refusal(rule, schedule: never, door: "front", now: now) == .disabled)
        var enabled = rule
        enabled.disabled = false
        #expect(AccessEvaluator.refusal(enabled, schedule: never, door: "back", now: now) == .notPermittedHere)
        #expect(AccessEvaluator.refusal(enabled, schedule: never, door: "front", now: nil) == .clockNotTrusted)
        #expect(AccessEvaluator.refusal(enabled, schedule: never, door: "front", now: now) == .expired)
        enabled.validUntil = nil
        #expect(AccessEvaluator.refusal(enabled, schedule: never, door: "front", now: now) == .outsideSchedule)
        #expect(AccessEvaluator.refusal(enabled, schedule: nil, door: "front", now: now) == .outsideSchedule)  // an unknown schedule refuses
        #expect(AccessEvaluator.refusal(AccessRule(doors: ["front"]), schedule: nil, door: "front", now: nil) == nil)  // no clock needed
        #expect(AccessEvaluator.refusal(nil, schedule: nil, door: "any", now: nil) == nil)
    }
}
