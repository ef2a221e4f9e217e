import Foundation
import Hummingbird
import KioskPadAccess
import SiteCore

/// `/api/v1/settings`: the settings the site gives its adopted doors, read (scope `read`:
/// the site's, each door's own, and what each door runs or refused) and changed (scope
/// `doors`) through ``DoorSettingsEditing``, as the console and `verifier settings` do.
struct APISettingsRoutes: Sendable {
    let changes: APIUserChanges
    var services: ConsoleServices { changes.services }

    func read(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let administration = services.administration
        let (version, byScope) = try await administration.allSettings()
        let reports = try await administration.settingsStates()
        var doors: [String: Any] = [:]
        for door in try await administration.doors() where door.standing == .adopted || door.standing == .rotating {
            let report = reports[door.terminalID]
            doors[door.terminalID] =
                [
                    "own": Self.json(byScope[door.terminalID] ?? DoorSettings()), "running": report?.running ?? 0,
                    "refused": report?.refused.map { ["version": $0.version, "reason": $0.reason] as [String: Any] } ?? NSNull(),
                ] as [String: Any]
        }
        return APIResponse.json(["version": version, "site": Self.json(byScope[DoorSettings.siteScope] ?? DoorSettings()), "doors": doors])
    }

    /// `PATCH /api/v1/settings`: `{"door"?: NAME, "set"?: {KEY: VALUE}, "remove"?: [KEY]}`.
    func change(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let fields: StrictJSON.Fields
        switch try await APIBody.object(request, allowed: ["door", "set", "remove"]) {
        case .failure(let refusal): return refusal.response
        case .success(let object): fields = object
        }
        if fields.has("door"), fields.string("door") == nil { return APIResponse.error(.badRequest, "door must be a door's terminal_id") }
        var assignments: [String] = []
        if fields.has("set") {
            guard let set = fields.object["set"].flatMap(StrictJSON.Fields.init), !set.object.keys.isEmpty else {
                return APIResponse.error(.badRequest, "set must be an object of one or more settings, e.g. {\"entry.timeout_s\": 15}")
            }
            for key in set.object.keys.sorted() {
                // JSON's own types, as the key takes them (a text is never a number or a flag).
                switch (DoorSettings.keys[key], set.object[key]) {
                case (nil, _): assignments.append("\(key)=")  // refused by the core, naming the valid keys
                case (.text?, .string?), (.choice?, .string?): assignments.append("\(key)=\(set.string(key) ?? "")")
                case (.flag?, .bool(let flag)?): assignments.append("\(key)=\(flag)")
                case (.integer?, .number?):
                    guard let number = set.integer(key) else { return APIResponse.error(.badRequest, "set.\(key) must be a whole number") }
                    assignments.append("\(key)=\(number)")
                case (.seconds?, .number(let text)?): assignments.append("\(key)=\(text)")
                case (let kind?, _):
                    let wanted = [
                        DoorSettings.Kind.text: "text", .choice: "text", .flag: "true or false", .integer: "a whole number", .seconds: "a number of seconds",
                    ]
                    return APIResponse.error(.badRequest, "set.\(key) must be \(wanted[kind] ?? kind.rawValue)")
                }
            }
        }
        var removing: [String] = []
        if fields.has("remove") {
            guard case .array(let items)? = fields.object["remove"], !items.isEmpty, let keys = Optional(items.compactMap(\.text)), keys.count == items.count
            else { return APIResponse.error(.badRequest, "remove must be a list of one or more keys") }
            removing = keys
        }
        do {
            let version = try await DoorSettingsEditing(administration: services.administration, changes: changes.changes(context)).change(
                door: fields.string("door"), set: assignments, remove: removing)
            return APIResponse.json(["version": version])
        } catch let error as UserEditError {
            return APIResponse.error(error.kind == .notFound ? .notFound : .badRequest, error.description)
        }
    }

    static func json(_ settings: DoorSettings) -> [String: Any] {
        settings.values.mapValues { value -> Any in
            switch value {
            case .integer(let number): return number
            case .number(let number): return number
            case .flag(let flag): return flag
            case .text(let text): return text
            }
        }
    }
}
