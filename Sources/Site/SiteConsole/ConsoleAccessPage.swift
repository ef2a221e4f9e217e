import Foundation
import Hummingbird
import KioskPadAccess
import KioskPadCore
import SiteCore

/// The Access page: door groups, access levels and user groups, each set and removed (what
/// is in use stays, named); "who can open this door, and through what" and "where can this
/// user go, and why", from the grants the evaluator decides by. Every change is made by the
/// same core functions as the command line and the API, and audited with the administrator's name.
extension ConsoleHandler {
    func accessPage(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let notices = ["saved": "Saved.", "removed": "Removed."]
        return try await renderAccess(
            context.visit, door: context.form.text("door"), user: context.form.text("user"),
            notice: Self.notice(context.form["done"].flatMap { notices[$0] }, with: Self.carriedNotes(context.form)))
    }

    func renderAccess(
        _ visit: Visit, door: String? = nil, user: String? = nil, notice: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let site = try await services.administration.siteRules()
        let tree = site.access
        var data: [String: Any] = [
            "doorGroups": tree.doorGroups.sorted { $0.key < $1.key }.map { ["name": $0.key, "doors": $0.value.doors.joined(separator: ", ")] },
            "levels": tree.levels.sorted { $0.key < $1.key }.map { name, level -> [String: Any] in
                [
                    "name": name, "doors": level.doors.joined(separator: ", "), "doorGroups": level.doorGroups.joined(separator: ", "),
                    "schedule": level.schedule ?? "always",
                ]
            },
            "groups": tree.userGroups.sorted { $0.key < $1.key }.map { name, group -> [String: Any] in
                let members = site.rules.filter { $0.value.groups.contains(name) }.keys.sorted()
                return [
                    "name": name, "levels": group.levels.joined(separator: ", "), "disabled": group.disabled,
                    "members": members.isEmpty ? "nobody" : members.joined(separator: ", "),
                ]
            },
            "scheduleNames": site.schedules.keys.sorted(),
        ]
        let now = services.now()
        if let door {
            let users = Array(Set(try await services.administration.records().map(\.name)))
            data["door"] = door
            data["doorLines"] = AccessExplanation.door(door, site: site, users: users, now: now).map(Self.row)
        }
        if let user {
            data["user"] = user
            data["userLines"] = AccessExplanation.grants(of: user, site: site, now: now).map(Self.row)
        }
        return ConsoleResponse.page("access", title: "Access", page: "access", visit: visit, data: data, notice: notice, error: error, status: status)
    }

    static func row(_ line: AccessExplanation.Line) -> [String: Any] {
        [
            "user": line.user, "via": line.grant.source.description,
            "doors": line.grant.doors.map { $0.isEmpty ? "no door" : $0.joined(separator: ", ") } ?? "every door",
            "schedule": line.grant.schedule ?? "always", "blocked": line.blocked ?? "",
        ]
    }

    /// `POST /console/access/{door-groups|levels|groups}`: sets one by its name.
    func saveAccessGroup(_ kind: AccessGroupKind) -> @Sendable (Request, AdminRequestContext) async throws -> Response {
        { _, context in
            let (visit, form) = (context.visit, context.form)
            let name = form.text("name") ?? ""
            let list = { (key: String) in (form.text(key) ?? "").replacingOccurrences(of: " ", with: "") }
            let notes: [ChangeNote]
            do {
                let definition: AccessGroupDefinition
                switch kind {
                case .doorGroup:
                    definition = .doorGroup(DoorGroup(doors: try AccessRule.doors(list("doors"), option: "doors: ")))
                case .level:
                    let schedule = form.text("schedule").flatMap { $0 == "always" ? nil : $0 }
                    definition = .level(
                        AccessLevel(
                            doors: try AccessRule.doors(list("doors"), option: "doors: "),
                            doorGroups: try AccessRule.names(list("door_groups"), option: "door groups: ", of: "a door group"), schedule: schedule))
                case .userGroup:
                    definition = .userGroup(
                        UserGroup(
                            levels: try AccessRule.names(list("levels"), option: "levels: ", of: "an access level"), disabled: form.text("disabled") == "yes"))
                }
                notes = try await AccessGroupChanges(administration: services.administration, changes: changes(visit)).set(name, definition)
            } catch let error as AccessRule.RuleError {
                return try await renderAccess(visit, error: "\(error.description). Nothing was saved.", status: .badRequest)
            } catch let error as UserEditError {
                return try await renderAccess(visit, error: "\(error.description). Nothing was saved.", status: .badRequest)
            }
            return ConsoleResponse.redirect("/console/access?done=saved" + Self.query(carrying: notes))
        }
    }

    /// `POST /console/access/{door-groups|levels|groups}/remove`: only what nothing uses.
    func accessGroupRemoval(_ kind: AccessGroupKind) -> @Sendable (Request, AdminRequestContext) async throws -> Response {
        { _, context in
            let (visit, form) = (context.visit, context.form)
            let name = form.text("name") ?? ""
            do {
                try await AccessGroupChanges(administration: services.administration, changes: changes(visit)).remove(kind, name)
            } catch let error as UserEditError {
                return try await renderAccess(visit, error: "\(error.description). Nothing was removed.", status: .conflict)
            }
            return ConsoleResponse.redirect("/console/access?done=removed")
        }
    }
}
