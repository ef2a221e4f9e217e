import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// Holidays and lockdown decided by the server over each real store (the site's clock
/// injected: Friday 2027-01-15 08:00 UTC, never slept).
extension AccessDecisionTests {
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aHolidayRefusesScheduledUsersOrLetsItsOwnScheduleDecide(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let admin = store.administration
        try await admin.setSchedule(name: "weekdays", spec: "mon-fri 07:00-21:00")
        try await admin.setSchedule(name: "holiday-hours", spec: "daily 12:00-14:00")
        try await admin.setAccess(user: "bob") { $0.schedule = "weekdays" }
        let reference = verifier(store)
        #expect(await reference.handle(request("1470", at: "front-door")) == .granted(unlockSeconds: 4, user: "bob"))
        try await admin.setHoliday(try Holiday(day: SiteDate(parsing: "2027-01-15")!, label: "Founders' Day"))
        #expect(await reference.handle(request("1470", at: "front-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "holiday")
        // A user without a schedule is not affected.
        #expect(await reference.handle(request("2580", at: "front-door")) == .granted(unlockSeconds: 4, user: "alice"))
        // Part of the day: from 12:00 only.
        try await admin.setHoliday(try Holiday(day: "2027-01-15", words: ["12:00-24:00"]))
        #expect(await reference.handle(request("1470", at: "front-door")) == .granted(unlockSeconds: 4, user: "bob"))
        clock.advance(5 * 3600)  // 13:00
        #expect(await reference.handle(request("1470", at: "front-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "holiday")
        // Its own schedule decides in place of bob's: 12:00-14:00 in, 15:00 out.
        try await admin.setHoliday(try Holiday(day: "2027-01-15", words: ["schedule=holiday-hours"]))
        #expect(await reference.handle(request("1470", at: "front-door")) == .granted(unlockSeconds: 4, user: "bob"))
        clock.advance(2 * 3600)  // 15:00
        #expect(await reference.handle(request("1470", at: "front-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "holiday")
        await #expect(throws: UserEditError.self) { try await admin.removeSchedule(name: "holiday-hours") }
        await #expect(throws: UserEditError.self) { try await admin.setHoliday(try Holiday(day: "2027-01-16", words: ["schedule=nope"])) }
        try await admin.removeHoliday(day: SiteDate(parsing: "2027-01-15")!)
        #expect(await reference.handle(request("1470", at: "front-door")) == .granted(unlockSeconds: 4, user: "bob"))
        await #expect(throws: UserEditError.self) { try await admin.removeHoliday(day: SiteDate(parsing: "2027-01-15")!) }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aHolidayIsTheSitesLocalDateNotTheServersUTCDate(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let admin = store.administration
        try await admin.setSchedule(name: "any-day", spec: "daily")
        try await admin.setAccess(user: "bob") { $0.schedule = "any-day" }
        // 2027-01-15 15:00 UTC is Saturday 2027-01-16 04:00 in Auckland (UTC+13 in summer).
        clock.advance(7 * 3600)
        try await admin.setTimeZone("Pacific/Auckland")
        try await admin.setHoliday(try Holiday(day: "2027-01-15", words: []))
        let reference = verifier(store)
        #expect(await reference.handle(request("1470", at: "front-door")) == .granted(unlockSeconds: 4, user: "bob"))
        try await admin.setHoliday(try Holiday(day: "2027-01-16", words: ["00:00-05:00"]))
        #expect(await reference.handle(request("1470", at: "front-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "holiday")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aLockdownLetsOnlyRespondersInAndADoorsOwnModeWins(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let admin = store.administration
        try await admin.setAccess(user: "bob") { $0.responder = true }
        let reference = verifier(store)
        let modes = try await admin.setMode(.lockdown, door: nil, by: "ops", at: clock.now)
        #expect(modes.site == DoorModes.Setting(mode: .lockdown, setBy: "ops", setAt: clock.now))
        #expect(await reference.handle(request("2580", at: "front-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "lockdown")
        #expect(await reference.handle(request("1470", at: "front-door")) == .granted(unlockSeconds: 4, user: "bob"))
        // A door set normal on its own is out of the site's lockdown; the others are not.
        try await admin.setMode(.normal, door: "front-door", by: "ops", at: clock.now)
        #expect(await reference.handle(request("2580", at: "front-door")) == .granted(unlockSeconds: 4, user: "alice"))
        #expect(await reference.handle(request("2580", at: "back-door")) == .denied())
        // The site back to normal, one door locked down on its own.
        try await admin.setMode(.normal, door: nil, by: "ops", at: clock.now)
        try await admin.setMode(.lockdown, door: "back-door", by: "ops", at: clock.now)
        try await admin.setMode(nil, door: "front-door", by: "ops", at: clock.now)
        #expect(await reference.handle(request("2580", at: "front-door")) == .granted(unlockSeconds: 4, user: "alice"))
        #expect(await reference.handle(request("2580", at: "back-door")) == .denied())
        // A release does not change who is admitted (the door is held open by the door itself).
        try await admin.setMode(.release, door: "back-door", by: "ops", at: clock.now)
        #expect(await reference.handle(request("2580", at: "back-door")) == .granted(unlockSeconds: 4, user: "alice"))
        let site = try await admin.siteRules()
        #expect(site.modes.site == nil && site.modes.doors.keys.sorted() == ["back-door"] && site.modes.mode(at: "back-door") == .release)
        await #expect(throws: UserEditError.self) { try await admin.setMode(.lockdown, door: "front door", by: "ops", at: clock.now) }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func importAddsAFilesHolidaysOnceAndRefusesAnotherForTheSameDate(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let admin = store.administration
        let text = "@schedule short daily 10:00-12:00\n@holiday 2027-12-24 12:00-24:00 schedule=short Christmas Eve\n"
        _ = try await admin.importUsers(try UsersFile(parsing: text, source: "users"))
        #expect(try await admin.siteRules().holidays.map(\.line) == ["2027-12-24 12:00-24:00 schedule=short Christmas Eve"])
        _ = try await admin.importUsers(try UsersFile(parsing: text, source: "users"))  // the same again: nothing to add
        await #expect(throws: UsersImport.Clash.self) {
            try await admin.importUsers(try UsersFile(parsing: "@holiday 2027-12-24 Christmas Eve\n", source: "users"))
        }
        #expect(try await admin.siteRules().holidays.count == 1)
    }
}
