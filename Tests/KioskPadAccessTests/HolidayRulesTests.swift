import Foundation
import KioskPadAccess
import KioskPadCore
import Testing

/// Holidays and responders in the users file, and the evaluator deciding with holidays and
/// a lockdown: the same code a door's local verifier and the site server decide with.
@Suite("Holidays and lockdown in the evaluator and the users file")
struct HolidayRulesTests {
    static let hash = try! PINHash.make(pin: SecretDigits(ascii: "2468")!, iterations: 1000)
    static let other = try! PINHash.make(pin: SecretDigits(ascii: "1357")!, iterations: 1000)

    static let text = """
        ana:\(hash)
        cleaner:\(other)
        @time_zone UTC
        @schedule weekdays mon-fri 07:00-21:00
        @schedule short daily 10:00-12:00
        @holiday 2026-12-25 Christmas Day
        @holiday 2026-12-24 12:00-24:00 schedule=short Christmas Eve
        @access ana responder
        @access cleaner schedule=weekdays

        """

    /// Thursday 2026-12-24 at `hour`:`minute` UTC.
    func christmasEve(_ hour: Int, _ minute: Int = 0) -> Date {
        Date(timeIntervalSince1970: 1_798_070_400 + Double(hour * 3600 + minute * 60))
    }

    @Test func holidaysAndRespondersRoundTripThroughTheFileText() throws {
        let file = try UsersFile(parsing: Self.text, source: "users")
        #expect(file.site.holidays.map(\.line) == ["2026-12-24 12:00-24:00 schedule=short Christmas Eve", "2026-12-25 Christmas Day"])
        #expect(file.site.rules["ana"] == AccessRule(responder: true))
        #expect(try AccessRule(fields: ["staff", "responder"]).fields == ["responder", "staff"])
        // A label may start with a digit; hours are HH:MM-HH:MM.
        #expect(try Holiday(day: "2026-05-01", words: ["1st", "of", "May"]).line == "2026-05-01 1st of May")
        #expect(throws: AccessRule.RuleError.self) { try Holiday(day: SiteDate(parsing: "2026-05-01")!, label: "a=b") }
        #expect(file.site.requires.map(\.rawValue) == ["holidays", "lockdown"])
        let again = try UsersFile(parsing: UsersFile.text(for: file.users, site: file.site, header: "test"), source: "again")
        #expect(again == file)
    }

    @Test(arguments: [
        ("@holiday 2026-13-01", "line 1: holiday date '2026-13-01' is not YYYY-MM-DD, e.g. 2026-12-25"),
        ("@holiday 2026-12-24 14:00-12:00", "line 1: holiday 2026-12-24: '14:00-12:00' is not its hours; write HH:MM-HH:MM within the day, e.g. 12:00-24:00"),
        ("@holiday 2026-12-24 shedule=short", "line 1: holiday 2026-12-24: 'shedule=short' is not known; valid: \(Holiday.grammar)"),
        ("@holiday 2026-12-24 schedule=short", "line 1: @holiday 2026-12-24: schedule 'short' is not defined here (add a line @schedule short SPEC)"),
        ("@holiday 2026-12-24\n@holiday 2026-12-24 Eve", "line 2: @holiday 2026-12-24 is given twice"),
        (
            "@access x responder=yes",
            "line 1: @access x: 'responder=yes' is not a rule; valid: doors=ID,ID schedule=NAME levels=NAME,NAME groups=NAME,NAME valid_from=DATE valid_until=DATE disabled responder staff"
        ),
    ])
    func aBadHolidayOrResponderLineNamesTheLineAndWhatIsValid(_ line: String, _ message: String) {
        #expect {
            try UsersFile(parsing: line + "\n", source: "users")
        } throws: { ($0 as? UsersFile.ParseError)?.description == "users \(message)" }
    }

    @Test func aHolidayRefusesScheduledUsersOnlyAndItsOwnScheduleDecidesInItsHours() throws {
        let rules = try CompiledSiteRules(try UsersFile(parsing: Self.text, source: "users").site)
        // Christmas Eve morning: not yet the holiday, the user's schedule decides.
        #expect(rules.refusal(user: "cleaner", door: "front", at: christmasEve(9)) == nil)
        // From 12:00 the holiday's schedule (10:00-12:00) decides: nothing after 12:00 is in it.
        #expect(rules.refusal(user: "cleaner", door: "front", at: christmasEve(12, 30)) == .holiday)
        // Christmas Day, a Friday within weekdays' hours: refused all day.
        #expect(rules.refusal(user: "cleaner", door: "front", at: christmasEve(24 + 10)) == .holiday)
        // A user without a schedule is not affected.
        #expect(rules.refusal(user: "ana", door: "front", at: christmasEve(24 + 10)) == nil)
        #expect(rules.refusal(user: "nobody-with-a-rule", door: "front", at: christmasEve(24 + 10)) == nil)
        // Boxing Day, a Saturday: the schedule's own refusal.
        #expect(rules.refusal(user: "cleaner", door: "front", at: christmasEve(48 + 10)) == .outsideSchedule)
    }

    @Test func aHolidaysScheduleGrantsWithinItsWindowsOnly() throws {
        var site = try UsersFile(parsing: Self.text, source: "users").site
        site.holidays = [try Holiday(day: "2026-12-24", words: ["schedule=short"])]
        let rules = try CompiledSiteRules(site)
        #expect(rules.refusal(user: "cleaner", door: "front", at: christmasEve(11)) == nil)
        #expect(rules.refusal(user: "cleaner", door: "front", at: christmasEve(9)) == .holiday)
    }

    @Test func aLockdownRefusesEveryoneButRespondersAndADoorsOwnModeWins() throws {
        var site = try UsersFile(parsing: Self.text, source: "users").site
        let setting = { (mode: DoorMode) in DoorModes.Setting(mode: mode, setBy: "ops", setAt: Date(timeIntervalSince1970: 0)) }
        site.modes = DoorModes(site: setting(.lockdown), doors: ["side": setting(.normal)])
        let rules = try CompiledSiteRules(site)
        let morning = christmasEve(9)
        #expect(rules.refusal(user: "cleaner", door: "front", at: morning) == .lockdown)
        #expect(rules.refusal(user: "someone-without-a-rule", door: "front", at: morning) == .lockdown)
        #expect(rules.refusal(user: "ana", door: "front", at: morning) == nil)
        #expect(rules.refusal(user: "cleaner", door: "side", at: morning) == nil)
        // A disabled responder stays out: disabled comes first.
        site.rules["ana"]?.disabled = true
        #expect(try CompiledSiteRules(site).refusal(user: "ana", door: "front", at: morning) == .disabled)
    }

    @Test func theLocalVerifierAppliesALockdownToUsersWithoutARule() async throws {
        var site = try UsersFile(parsing: Self.text, source: "users").site
        site.rules["cleaner"] = nil
        site.modes = DoorModes(site: DoorModes.Setting(mode: .lockdown, setBy: "ops", setAt: Date(timeIntervalSince1970: 0)))
        let file = try UsersFile(parsing: Self.text, source: "users")
        let verifier = LocalVerifier(users: UsersFile(users: file.users, site: site), clock: { self.christmasEve(9) })
        #expect(await verifier.verify(VerificationAttempt(terminalID: "front", kind: .pin, value: SecretDigits(ascii: "1357")!)) == .denied(reason: .lockdown))
        #expect(await verifier.verify(VerificationAttempt(terminalID: "front", kind: .pin, value: SecretDigits(ascii: "2468")!)) == .granted(user: "ana"))
    }
}
