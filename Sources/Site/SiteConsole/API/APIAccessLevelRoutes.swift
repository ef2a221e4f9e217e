import Foundation
import Hummingbird
import KioskPadAccess
import SiteCore

/// `/api/v1/door-groups`, `/api/v1/access-levels` and `/api/v1/groups`: the site's tree
/// read (scope read), each entry set by its name and removed (scope `doors`); and
/// `GET /api/v1/doors/{name}/access` and `GET /api/v1/users/{name}/access`: who can open a
/// door and through what, where a user can go and why. Changes go through the same core
/// functions as the console and the command line, audited the same way.
struct APIAccessLevelRoutes: Sendable {
    let changes: APIUserChanges
    var administration: any VerifierAdministration { changes.services.administration }

    func list(_ kind: AccessGroupKind) -> @Sendable (Request, APIRequestContext) async throws -> Response {
        { _, _ in
            let tree = try await administration.siteRules().access
            let items: [[String: Any]]
            switch kind {
            case .doorGroup: items = tree.doorGroups.sorted { $0.key < $1.key }.map { ["name": $0.key, "doors": $0.value.doors] }
            case .level: items = tree.levels.sorted { $0.key < $1.key }.map { Self.json($0.key, $0.value) }
            case .userGroup:
                items = tree.userGroups.sorted { $0.key < $1.key }.map { ["name": $0.key, "levels": $0.value.levels, "disabled": $0.value.disabled] }
            }
            return APIResponse.json([Self.collection(kind): items])
        }
    }

    /// `PUT .../{name}`: a door group `{"doors": [...]}`, a level `{"doors": [...],
    /// "door_groups": [...], "schedule": "office" or null}`, a user group `{"levels": [...], "disabled": false}`.
    func set(_ kind: AccessGroupKind) -> @Sendable (Request, APIRequestContext) async throws -> Response {
        { request, context in
            let allowed: Set<String> =
                switch kind {
                case .doorGroup: ["doors"]
                case .level: ["doors", "door_groups", "schedule"]
                case .userGroup: ["levels", "disabled"]
                }
            let fields: StrictJSON.Fields
            switch try await APIBody.object(request, allowed: allowed, nullable: ["schedule"]) {
            case .failure(let refusal): return refusal.response
            case .success(let object): fields = object
            }
            let name = context.parameters.get("name") ?? ""
            let notes: [ChangeNote]
            do {
                let list = { (key: String) in fields.has(key) ? try APIUserCreation.names(fields, key) : [] }
                let definition: AccessGroupDefinition
                switch kind {
                case .doorGroup:
                    definition = .doorGroup(DoorGroup(doors: try AccessRule.doors(try list("doors").joined(separator: ","), option: "doors: ")))
                case .level:
                    if fields.has("schedule"), fields.object["schedule"] != .null, fields.string("schedule") == nil {
                        return APIResponse.error(.badRequest, "schedule must be a schedule's name or null (always)")
                    }
                    definition = .level(
                        AccessLevel(
                            doors: try AccessRule.doors(try list("doors").joined(separator: ","), option: "doors: "),
                            doorGroups: try AccessRule.names(try list("door_groups").joined(separator: ","), option: "door_groups: ", of: "a door group"),
                            schedule: fields.string("schedule").flatMap { $0 == "always" ? nil : $0 }))
                case .userGroup:
                    if fields.has("disabled"), fields.bool("disabled") == nil { return APIResponse.error(.badRequest, "disabled must be true or false") }
                    definition = .userGroup(
                        UserGroup(
                            levels: try AccessRule.names(try list("levels").joined(separator: ","), option: "levels: ", of: "an access level"),
                            disabled: fields.bool("disabled") ?? false))
                }
                notes = try await groups(context).set(name, definition)
            } catch let error as AccessRule.RuleError {
                return APIResponse.error(.badRequest, error.description)
            } catch let problem as APIUserCreation.FieldProblem {
                return APIResponse.error(.badRequest, problem.description)
            } catch let error as UserEditError {
                return APIResponse.error(.badRequest, error.description)
            }
            let tree = try await administration.siteRules().access
            switch kind {
            case .doorGroup: return APIResponse.json(APIResponse.noting(notes, ["name": name, "doors": tree.doorGroups[name]?.doors ?? []]))
            case .level: return APIResponse.json(APIResponse.noting(notes, tree.levels[name].map { Self.json(name, $0) } ?? ["name": name]))
            case .userGroup:
                let group = tree.userGroups[name] ?? UserGroup()
                return APIResponse.json(["name": name, "levels": group.levels, "disabled": group.disabled])
            }
        }
    }

    func remove(_ kind: AccessGroupKind) -> @Sendable (Request, APIRequestContext) async throws -> Response {
        { _, context in
            let name = context.parameters.get("name") ?? ""
            let tree = try await administration.siteRules().access
            let exists =
                switch kind {
                case .doorGroup: tree.doorGroups[name] != nil
                case .level: tree.levels[name] != nil
                case .userGroup: tree.userGroups[name] != nil
                }
            guard exists else { return APIResponse.error(.notFound, "there is no \(kind.noun) \(name.prefix(64))") }
            do {
                try await groups(context).remove(kind, name)
            } catch let error as UserEditError {
                return APIResponse.error(.conflict, error.description)
            }
            return APIResponse.json(["name": name, "removed": true])
        }
    }

    /// `GET /api/v1/doors/{name}/access`: every user who can open the door, with the grant.
    func door(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let door = context.parameters.get("name") ?? ""
        let site = try await administration.siteRules()
        let users = Array(Set(try await administration.records().map(\.name)))
        let lines = AccessExplanation.door(door, site: site, users: users, now: changes.services.now())
        return APIResponse.json(["door": door, "access": lines.map(Self.json)])
    }

    /// `GET /api/v1/users/{name}/access`: each grant of the user.
    func user(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        guard try await administration.userListing(name: name) != nil else { return APIResponse.error(.notFound, "there is no user \(name.prefix(64))") }
        let lines = AccessExplanation.grants(of: name, site: try await administration.siteRules(), now: changes.services.now())
        return APIResponse.json(["user": name, "access": lines.map(Self.json)])
    }

    static func json(_ line: AccessExplanation.Line) -> [String: Any] {
        var source: [String: Any] = [:]
        switch line.grant.source {
        case .own: source = ["kind": "own"]
        case .level(let level): source = ["kind": "level", "level": level]
        case .group(let group, let level): source = ["kind": "group", "group": group, "level": level]
        }
        return [
            "user": line.user, "via": source, "doors": line.grant.doors.map { $0 as Any } ?? NSNull(),
            "schedule": line.grant.schedule.map { $0 as Any } ?? NSNull(), "blocked": line.blocked.map { $0 as Any } ?? NSNull(),
        ]
    }

    /// The door groups, levels and user groups changed with this request's token.
    func groups(_ context: APIRequestContext) -> AccessGroupChanges {
        AccessGroupChanges(administration: administration, changes: changes.changes(context))
    }

    static func json(_ name: String, _ level: AccessLevel) -> [String: Any] {
        ["name": name, "doors": level.doors, "door_groups": level.doorGroups, "schedule": level.schedule.map { $0 as Any } ?? NSNull()]
    }

    static func collection(_ kind: AccessGroupKind) -> String {
        switch kind {
        case .doorGroup: "door_groups"
        case .level: "access_levels"
        case .userGroup: "groups"
        }
    }
}
