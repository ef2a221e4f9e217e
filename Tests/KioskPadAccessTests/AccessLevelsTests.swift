import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Testing

/// Door groups, access levels and user groups in the one evaluator: a user's access is the
/// union of their own grant and their levels (directly and through enabled groups); validity,
/// disabled, lockdown and holidays apply as for a user's own rule. The same users file a
/// door's local verifier reads.
@Suite("Access levels and groups in the evaluator and the users file")
struct AccessLevelsTests {
    static let hash = try! PINHash.make(pin: SecretDigits(ascii: "2468")!, iterations: 1000)
    static let anasHash = try! PINHash.make(pin: SecretDigits(ascii: "1111")!, iterations: 1000)

    static let text = AccessLevelsSite.usersFile(hash: hash.description, anasHash: anasHash.description)

    static let file = try! UsersFile(parsing: text, source: "users")
    static let rules = try! CompiledSiteRules(file.site)

    /// `day` of December 2026 (the 7th is a Monday) at `hour`:`minute` UTC.
    static func december(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        let seconds: Int = (day - 1) * 86_400 + hour * 3600 + minute * 60
        return Date(timeIntervalSince1970: 1_796_083_200 + Double(seconds))
    }

    func refusal(_ user: String, _ door: String, _ at: Date?) -> DenialReason? {
        Self.rules.refusal(user: user, door: door, at: at)
    }

    @Test func theFileRoundTripsAndEveryNameMustBeDefined() throws {
        let again = try UsersFile(parsing: UsersFile.text(for: Self.file.users, site: Self.file.site, header: "test"), source: "again")
        #expect(again == Self.file)
        #expect(Self.file.site.access.doors(of: Self.file.site.access.levels["staff-hours"]!) == ["front", "side"])
        for (line, message) in [
            ("@access ana levels=nope", "@access ana: access level 'nope' is not defined here (add a line @level or @group)"),
            ("@access ana groups=nope", "@access ana: user group 'nope' is not defined here (add a line @level or @group)"),
            ("@level l door_groups=nope", "access level l: door group 'nope' is not defined here"),
            ("@level l doors=a schedule=nope", "access level l: schedule 'nope' is not defined here"),
            ("@group g levels=nope", "user group g: access level 'nope' is not defined here"),
            ("@level l doors=a floor=2", "@level l: 'floor=2' is not part of an access level; valid: doors=ID,ID door_groups=NAME,NAME schedule=NAME"),
            ("@group g levels=a\n@group g levels=a", "@group g is given twice"),
        ] {
            #expect {
                try UsersFile(parsing: "ana:\(Self.hash)\n" + line + "\n", source: "users")
            } throws: { ($0 as? UsersFile.ParseError)?.description.hasSuffix(message) == true }
        }
    }

    @Test func aLevelThroughAGroupOpensItsDoorGroupsDoorsInItsScheduleOnly() {
        #expect(refusal("ana", "side", Self.december(7, 9)) == nil)  // Monday 09:00, side is in ground
        #expect(refusal("ana", "front", Self.december(7, 17, 59)) == nil)
        #expect(refusal("ana", "front", Self.december(7, 18)) == .outsideSchedule)
        #expect(refusal("ana", "front", Self.december(12, 9)) == .outsideSchedule)  // Saturday
        #expect(refusal("ana", "shop", Self.december(7, 9)) == .notPermittedHere)
        #expect(refusal("ana", "front", nil) == .clockNotTrusted)
    }

    @Test func overlappingLevelsAdmitInTheUnionOfTheirSchedules() {
        // cleo: staff (front, side in office) and cleaners (front, store in evening).
        #expect(refusal("cleo", "front", Self.december(7, 9)) == nil)
        #expect(refusal("cleo", "front", Self.december(7, 20)) == nil)
        #expect(refusal("cleo", "front", Self.december(7, 23)) == .outsideSchedule)
        #expect(refusal("cleo", "side", Self.december(7, 20)) == .outsideSchedule)  // side only through staff
        #expect(refusal("cleo", "store", Self.december(12, 20)) == nil)  // Saturday evening through cleaners
        #expect(refusal("cleo", "store", Self.december(7, 9)) == .outsideSchedule)
        let compiled = Self.file.site.access.rule(Self.file.site.rules["cleo"]!, at: "front")
        #expect(compiled.doors == ["front"] && compiled.schedule == "evening,office" && compiled.levels.isEmpty && compiled.groups.isEmpty)
    }

    @Test func theOwnGrantIsPartOfTheUnionAndAnAlwaysGrantWins() {
        // dev: own doors=shop (always) and staff.
        #expect(refusal("dev", "shop", Self.december(12, 3)) == nil)
        #expect(refusal("dev", "front", Self.december(7, 9)) == nil)
        #expect(refusal("dev", "front", Self.december(12, 3)) == .outsideSchedule)
        // A user with groups and no doors has no own grant: ana cannot open shop (above).
        #expect(Self.file.site.rules["ana"]!.hasOwnGrant == false)
        #expect(Self.file.site.rules["dev"]!.hasOwnGrant)
    }

    @Test func aDisabledGroupGivesNothingAndADisabledUserNothingAtAll() {
        #expect(refusal("eve", "shop", Self.december(7, 9)) == .notPermittedHere)
        // gus: workshop directly and cleaners, but disabled.
        #expect(refusal("gus", "shop", Self.december(7, 9)) == .disabled)
        var site = Self.file.site
        site.access.userGroups["makers"]?.disabled = false
        site.rules["gus"]?.disabled = false
        let enabled = try! CompiledSiteRules(site)
        #expect(enabled.refusal(user: "eve", door: "shop", at: Self.december(7, 9)) == nil)
        #expect(enabled.refusal(user: "gus", door: "shop", at: Self.december(12, 3)) == nil)
        #expect(enabled.refusal(user: "gus", door: "store", at: Self.december(7, 20)) == nil)
    }

    @Test func validityLockdownAndHolidaysApplyAsForAUsersOwnRule() throws {
        #expect(refusal("finn", "front", Self.december(1, 9)) == nil)  // Tuesday, the last valid day
        #expect(refusal("finn", "front", Self.december(2, 9)) == .expired)
        // Christmas Eve (Thursday) is a holiday with its own schedule, 10:00-12:00, for every scheduled grant.
        #expect(refusal("ana", "front", Self.december(24, 9)) == .holiday)
        #expect(refusal("ana", "front", Self.december(24, 11)) == nil)
        #expect(refusal("cleo", "front", Self.december(24, 20)) == .holiday)
        #expect(refusal("ana", "front", Self.december(25, 11)) == .holiday)
        // An always grant does not look at holidays.
        #expect(refusal("dev", "shop", Self.december(25, 11)) == nil)
        // Lockdown: only responders, whatever their levels.
        var site = Self.file.site
        site.modes = DoorModes(site: DoorModes.Setting(mode: .lockdown, setBy: "test", setAt: Date()))
        let locked = try CompiledSiteRules(site)
        #expect(locked.refusal(user: "ana", door: "front", at: Self.december(1, 9)) == .lockdown)
        #expect(locked.refusal(user: "finn", door: "front", at: Self.december(1, 9)) == nil)
    }

    @Test func anUndefinedNameGivesNothing() throws {
        var site = Self.file.site
        site.access.levels["staff-hours"] = nil
        let rules = CompiledSiteRules(unchecked: site)
        #expect(rules.refusal(user: "ana", door: "front", at: Self.december(7, 9)) == .notPermittedHere)
        // A level naming a schedule that is not there admits at no minute.
        site = Self.file.site
        site.schedules["office"] = nil
        #expect(CompiledSiteRules(unchecked: site).refusal(user: "ana", door: "front", at: Self.december(7, 9)) == .outsideSchedule)
        #expect(throws: AccessRule.RuleError.self) { try CompiledSiteRules(site) }
    }

    @Test func theDoorsLocalVerifierDecidesByTheSameLevels() async throws {
        let users = Self.file
        for (door, hour, expected) in [("front", 9, true), ("front", 20, false), ("shop", 9, false)] {
            let verifier = LocalVerifier(users: users, clock: { Self.december(7, hour) }, clockTrusted: { true })
            let decision = await verifier.verify(VerificationAttempt(terminalID: door, kind: .pin, value: SecretDigits(ascii: "1111")!))
            #expect((decision == .granted(user: "ana")) == expected, "\(door) \(hour): \(decision)")
        }
    }

    @Test func aRuleWithSeveralSchedulesNamesTheNewRuleInAReplica() {
        let replica = CredentialReplica(
            terminalID: "front", version: 1, issuedAt: Date(), timeZone: "UTC", schedules: ["office": "mon-fri 08:00-18:00", "evening": "daily 18:00-22:00"],
            rules: ["cleo": "doors=front schedule=evening,office"], entries: [])
        #expect(replica.requires == [.accessLevels])
        let single = CredentialReplica(
            terminalID: "front", version: 1, issuedAt: Date(), timeZone: "UTC", schedules: ["office": "mon-fri 08:00-18:00"],
            rules: ["ana": "doors=front schedule=office"], entries: [])
        #expect(single.requires.isEmpty)
    }
}
