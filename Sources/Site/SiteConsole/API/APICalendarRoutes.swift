import Foundation
import Hummingbird
import KioskPadAccess
import SiteCore

/// `/api/v1/holidays` and `/api/v1/schedules`: the site's calendar read (scope read), a
/// holiday or a named weekly schedule set by its key and removed (scope `doors`), by the
/// same core functions as the console and the command line, audited the same way.
struct APICalendarRoutes: Sendable {
    let changes: APIUserChanges
    var administration: any VerifierAdministration { changes.services.administration }

    /// The calendar's changes made with this request's token (``DoorRuleChanges``).
    func calendar(_ context: APIRequestContext) -> DoorRuleChanges {
        DoorRuleChanges(administration: administration, changes: changes.changes(context))
    }

    func holidays(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        APIResponse.json(["holidays": try await administration.siteRules().holidays.map(Self.json)])
    }

    /// `PUT /api/v1/holidays/{date}` with `hours` (`HH:MM-HH:MM`, left out: the whole day),
    /// `schedule` (one that applies in place of users' own) and `label`.
    func setHoliday(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let fields: StrictJSON.Fields
        switch try await APIBody.object(request, allowed: ["hours", "schedule", "label"]) {
        case .failure(let refusal): return refusal.response
        case .success(let object): fields = object
        }
        for key in ["hours", "schedule", "label"] where fields.has(key) && fields.string(key) == nil {
            return APIResponse.error(.badRequest, "\(key) must be a string")
        }
        let date = context.parameters.get("date") ?? ""
        do {
            let holiday = try Holiday(
                day: date, hours: fields.string("hours"), schedule: fields.string("schedule"), label: fields.string("label") ?? "", hoursField: "hours")
            try await calendar(context).setHoliday(holiday)
            return APIResponse.json(Self.json(holiday))
        } catch let error as AccessRule.RuleError {
            return APIResponse.error(.badRequest, error.description)
        } catch let error as UserEditError {
            return APIResponse.error(.badRequest, error.description)
        }
    }

    func removeHoliday(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let date = context.parameters.get("date") ?? ""
        guard let day = SiteDate(parsing: date), day.minute == nil else {
            return APIResponse.error(.badRequest, "date must be YYYY-MM-DD, e.g. 2026-12-25")
        }
        do {
            try await calendar(context).removeHoliday(day: day)
        } catch let error as UserEditError {
            return APIResponse.error(.notFound, error.description)
        }
        return APIResponse.json(["date": day.description, "removed": true])
    }

    func schedules(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let site = try await administration.siteRules()
        return APIResponse.json([
            "time_zone": site.timeZone.map { $0 as Any } ?? NSNull(),
            "schedules": site.schedules.sorted { $0.key < $1.key }.map { ["name": $0.key, "spec": $0.value] },
        ])
    }

    /// `PUT /api/v1/schedules/{name}` with `spec` (`mon-fri 08:00-18:00; sat 09:00-13:00`).
    func setSchedule(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let fields: StrictJSON.Fields
        switch try await APIBody.object(request, allowed: ["spec"]) {
        case .failure(let refusal): return refusal.response
        case .success(let object): fields = object
        }
        guard let spec = fields.string("spec") else {
            return APIResponse.error(.badRequest, "spec must be a string such as \"mon-fri 08:00-18:00; sat 09:00-13:00\"")
        }
        let name = context.parameters.get("name") ?? ""
        do {
            try await calendar(context).setSchedule(name: name, spec: spec)
        } catch let error as UserEditError {
            return APIResponse.error(.badRequest, error.description)
        }
        let stored = try await administration.siteRules().schedules[name] ?? spec
        return APIResponse.json(["name": name, "spec": stored])
    }

    func removeSchedule(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        guard try await administration.siteRules().schedules[name] != nil else {
            return APIResponse.error(.notFound, "there is no schedule \(name)")
        }
        do {
            try await calendar(context).removeSchedule(name: name)
        } catch let error as UserEditError {
            return APIResponse.error(.conflict, error.description)
        }
        return APIResponse.json(["name": name, "removed": true])
    }

    static func json(_ holiday: Holiday) -> [String: Any] {
        let whole = holiday.minutes == 0..<1440
        return [
            "date": holiday.day.description,
            "hours": whole ? NSNull() : "\(Holiday.clock(holiday.minutes.lowerBound))-\(Holiday.clock(holiday.minutes.upperBound))" as Any,
            "schedule": holiday.schedule.map { $0 as Any } ?? NSNull(), "label": holiday.label,
        ]
    }
}
