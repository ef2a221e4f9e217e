import Foundation
import Hummingbird
import KioskPadAccess
import KioskPadCore
import SiteCore

/// The Site page: lockdown and release for the site or one door (who set each and when),
/// doors' unlock schedules (first person in), doors that ask for card and PIN, and the
/// holiday calendar. Every change is
/// audited with the administrator's name.
extension ConsoleHandler {
    func sitePage(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let notices = [
            "mode": "Mode set.", "holiday": "Holiday saved.", "removed": "Holiday removed.", "unlock": "Unlock schedule saved.",
            "card_pin": "Card and PIN saved.",
        ]
        return try await renderSite(context.visit, notice: Self.notice(context.form["done"].flatMap { notices[$0] }, with: Self.carriedNotes(context.form)))
    }

    func renderSite(_ visit: Visit, notice: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let site = try await services.administration.siteRules()
        let zone = site.timeZone.flatMap(TimeZone.init(identifier:)) ?? .current
        // A guard limited to door groups: the modes, unlock schedules and card-and-PIN rules of their doors.
        let mine = DoorScopes.doors(of: visit.actor, site: site)
        let shown = { (door: String) in mine?.contains(door) ?? true }
        var data: [String: Any] = [
            "siteMode": (site.modes.site?.mode ?? .normal).rawValue,
            "doorModes": site.modes.doors.filter { shown($0.key) }.sorted { $0.key < $1.key }.map { door, setting -> [String: Any] in
                ["door": door, "mode": setting.mode.rawValue, "setBy": setting.setBy, "setAt": ConsoleTime.local(setting.setAt, zone)]
            },
            "scheduleNames": site.schedules.keys.sorted(),
            "unlocks": site.unlockSchedules.filter { shown($0.key) }.sorted { $0.key < $1.key }.map { door, unlock -> [String: Any] in
                ["door": door, "schedule": unlock.schedule, "firstIn": unlock.firstIn ? "yes" : "no"]
            },
            "cardPINDoors": site.cardAndPIN.filter { shown($0.key) }.sorted { $0.key < $1.key }.map { door, rule -> [String: Any] in
                ["door": door, "when": rule.schedule.map { "in schedule \($0)" } ?? "always"]
            },
            "holidays": site.holidays.map { holiday -> [String: Any] in
                [
                    "date": holiday.day.description, "hours": holiday.minutes == 0..<1440 ? "whole day" : holiday.rule.split(separator: " ")[0],
                    "schedule": holiday.schedule ?? "none", "label": holiday.label,
                ]
            },
        ]
        if let setting = site.modes.site {
            data["siteSetBy"] = setting.setBy
            data["siteSetAt"] = ConsoleTime.local(setting.setAt, zone)
        }
        return ConsoleResponse.page("site", title: "Site", page: "site", visit: visit, data: data, notice: notice, error: error, status: status)
    }

    func setMode(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        let door = form.text("door")
        let choice = form.text("mode") ?? ""
        let mode = DoorMode(rawValue: choice)
        guard mode != nil || (choice == "site" && door != nil) else {
            return try await renderSite(
                visit, error: "Mode must be lockdown, release or normal (follow the site: only for a door). Nothing was changed.", status: .badRequest)
        }
        let notes: [ChangeNote]
        do {
            notes = try await ModeChanges(administration: services.administration, changes: changes(visit)).set(SetMode(mode, door: door), at: services.now())
                .notes
        } catch let error as UserEditError {
            return try await renderSite(visit, error: "\(error.description). Nothing was changed.", status: .badRequest)
        }
        return ConsoleResponse.redirect("/console/site?done=mode" + Self.query(carrying: notes))
    }

    func saveUnlock(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let door = form.text("door") else { return try await renderSite(visit, error: "An unlock schedule needs a door.", status: .badRequest) }
        let unlock = form.text("schedule").map { DoorUnlockSchedule(schedule: $0, firstIn: form.text("first_in") == "yes") }
        let notes: [ChangeNote]
        do {
            notes = try await doorRules(visit).setUnlock(door: door, unlock)
        } catch let error as UserEditError {
            return try await renderSite(visit, error: "\(error.description). Nothing was changed.", status: .badRequest)
        }
        return ConsoleResponse.redirect("/console/site?done=unlock" + Self.query(carrying: notes))
    }

    func saveCardAndPIN(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let door = form.text("door") else { return try await renderSite(visit, error: "Card and PIN needs a door.", status: .badRequest) }
        let rule = form.text("schedule").map { CardAndPINRule(schedule: $0 == "always" ? nil : $0) }
        let notes: [ChangeNote]
        do {
            notes = try await doorRules(visit).setCardAndPIN(door: door, rule)
        } catch let error as UserEditError {
            return try await renderSite(visit, error: "\(error.description). Nothing was changed.", status: .badRequest)
        }
        return ConsoleResponse.redirect("/console/site?done=card_pin" + Self.query(carrying: notes))
    }

    func saveHoliday(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        let holiday: Holiday
        do {
            holiday = try Holiday(day: form.text("date") ?? "", hours: form.text("hours"), schedule: form.text("schedule"), label: form.text("label") ?? "")
            try await doorRules(visit).setHoliday(holiday)
        } catch let error as AccessRule.RuleError {
            return try await renderSite(visit, error: "\(error.description). Nothing was saved.", status: .badRequest)
        } catch let error as UserEditError {
            return try await renderSite(visit, error: "\(error.description). Nothing was saved.", status: .badRequest)
        }
        return ConsoleResponse.redirect("/console/site?done=holiday")
    }

    func removeHoliday(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let day = form.text("date").flatMap(SiteDate.init(parsing:)), day.minute == nil else {
            return try await renderSite(visit, error: "A holiday is removed by its date (YYYY-MM-DD).", status: .badRequest)
        }
        do {
            try await doorRules(visit).removeHoliday(day: day)
        } catch let error as UserEditError {
            return try await renderSite(visit, error: "\(error.description).", status: .notFound)
        }
        return ConsoleResponse.redirect("/console/site?done=removed")
    }
}
