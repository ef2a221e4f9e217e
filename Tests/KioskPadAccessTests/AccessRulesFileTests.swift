import Foundation
import KioskPadAccess
import KioskPadCore
import Synchronization
import Testing

/// The users file's `@` lines, and a terminal's local verifier deciding with them: doors
/// (its own terminal_id), schedules, validity, disabled users, and a clock it cannot trust.
@Suite("Access rules in the users file and the local verifier")
struct AccessRulesFileTests {
    static let hash = try! PINHash.make(pin: SecretDigits(ascii: "2468")!, iterations: 1000)
    static let other = try! PINHash.make(pin: SecretDigits(ascii: "1357")!, iterations: 1000)

    func attempt(_ pin: String, at door: String) -> VerificationAttempt {
        VerificationAttempt(terminalID: door, kind: .pin, value: SecretDigits(ascii: pin)!)
    }

    static let text = """
        ana:\(hash)
        cleaner:\(other)
        @time_zone Europe/Berlin
        @schedule evenings mon-fri 18:00-21:00; sat 08:00-12:00
        @access ana doors=front-door,back-door valid_until=2026-12-31
        @access cleaner doors=back-door schedule=evenings

        """

    @Test func rulesRoundTripThroughTheFileText() throws {
        let file = try UsersFile(parsing: Self.text, source: "users")
        #expect(file.site.timeZone == "Europe/Berlin")
        #expect(file.site.schedules == ["evenings": "mon-fri 18:00-21:00; sat 08:00-12:00"])
        #expect(file.site.rules["ana"] == AccessRule(doors: ["back-door", "front-door"], validUntil: SiteDate(parsing: "2026-12-31")))
        let again = try UsersFile(parsing: UsersFile.text(for: file.users, site: file.site, header: "test"), source: "again")
        #expect(again == file)
        // Old files, without any @ line, mean every door, always.
        #expect(try UsersFile(parsing: "ana:\(Self.hash)\n", source: "old").site == SiteRules())
    }

    @Test(arguments: [
        ("@schedule s mon-fri 18:00-25:00", "line 2: @schedule s: part 1 (\"mon-fri 18:00-25:00\"): '25:00' is not an end time"),
        ("@access ana schedule=nope", "line 2: @access ana: schedule 'nope' is not defined here"),
        ("@access bob doors=front", "line 2: @access bob: no user 'bob' in this file"),
        ("@access ana doors=front valid_until=friday", "line 2: @access ana: valid_until=friday is not YYYY-MM-DD"),
        ("@access ana colour=red", "'colour=red' is not a rule"),
        ("@time_zone Mars/Olympus", "'Mars/Olympus' is not an IANA time zone"),
        ("@lockdown front-door", "'@lockdown' is not a known line"),
        ("@access ana doors=front\n@access ana disabled", "line 3: @access ana is given twice"),
    ])
    func aBadRuleLineIsRefusedNamingItsLineAndPart(line: String, message: String) {
        #expect {
            _ = try UsersFile(parsing: "ana:\(Self.hash)\n\(line)\n", source: "users")
        } throws: { error in
            String(describing: error).contains(message)
        }
    }

    @Test func theLocalVerifierAppliesDoorsScheduleValidityAndDisabled() async throws {
        var file = try UsersFile(parsing: Self.text, source: "users")
        // Friday 2026-11-27 19:00 in Berlin (18:00Z): inside the cleaner's evenings.
        let friday = ISO8601DateFormatter().date(from: "2026-11-27T18:00:00Z")!
        let clock = Mutex(friday)
        let verifier = LocalVerifier(users: file, clock: { clock.withLock { $0 } })
        #expect(await verifier.verify(attempt("2468", at: "front-door")) == .granted(user: "ana"))
        #expect(await verifier.verify(attempt("2468", at: "side-door")) == .denied(reason: .notPermittedHere))
        #expect(await verifier.verify(attempt("1357", at: "back-door")) == .granted(user: "cleaner"))
        #expect(await verifier.verify(attempt("1357", at: "front-door")) == .denied(reason: .notPermittedHere))
        clock.withLock { $0 = friday.addingTimeInterval(3 * 3600) }  // 22:00
        #expect(await verifier.verify(attempt("1357", at: "back-door")) == .denied(reason: .outsideSchedule))
        clock.withLock { $0 = ISO8601DateFormatter().date(from: "2027-01-01T00:00:00Z")! }  // 01:00 on 1 January in Berlin
        #expect(await verifier.verify(attempt("2468", at: "front-door")) == .denied(reason: .expired))
        var site = file.site
        site.rules["ana"] = AccessRule(disabled: true)
        file = UsersFile(users: file.users, site: site)
        verifier.replaceUsers(file)
        #expect(await verifier.verify(attempt("2468", at: "front-door")) == .denied(reason: .disabled))
        #expect(await verifier.verify(attempt("0000", at: "front-door")) == .denied())
    }

    @Test func anUntrustedClockRefusesOnlyUsersWhoseRulesNeedIt() async throws {
        let file = try UsersFile(
            parsing: """
                ana:\(Self.hash)
                cleaner:\(Self.other)
                @schedule always-open daily
                @access ana doors=front-door
                @access cleaner schedule=always-open
                """, source: "users")
        let verifier = LocalVerifier(users: file, clockTrusted: { false })
        #expect(await verifier.verify(attempt("2468", at: "front-door")) == .granted(user: "ana"))
        #expect(await verifier.verify(attempt("1357", at: "front-door")) == .denied(reason: .clockNotTrusted))
        let trusted = LocalVerifier(users: file, clockTrusted: { true })
        #expect(await trusted.verify(attempt("1357", at: "front-door")) == .granted(user: "cleaner"))
    }
}
