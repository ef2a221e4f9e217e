import Foundation
import Hummingbird
import KioskPadAccess
import KioskPadStorage
import SiteCore

/// `/api/v1/doors`: every door with its live state and standing alerts (as the console's
/// Doors page shows them), an alert acknowledged (scope `doors`), and the site's and each
/// door's mode (lockdown, release) with who set it, read and set (scope `doors`).
struct APIDoorRoutes: Sendable {
    let board: DoorStatusBoard
    let changes: APIUserChanges
    var services: ConsoleServices { changes.services }

    func list(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let modes = try await services.administration.siteRules().modes
        return APIResponse.json(["doors": try await board.doors().map { Self.json($0, modes: modes) }])
    }

    func acknowledge(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let terminal = context.parameters.get("name") ?? ""
        let alert = context.parameters.get("alert") ?? ""
        guard DoorView.alertNames.contains(alert) else {
            return APIResponse.error(.badRequest, "alert must be one of \(DoorView.alertNames.joined(separator: ", "))")
        }
        guard let door = try await board.doors().first(where: { $0.view.terminalID == terminal }) else {
            return APIResponse.error(.notFound, "there is no door \(terminal) (GET /api/v1/doors lists them)")
        }
        guard door.alerts.contains(where: { $0.name == alert }) else {
            return APIResponse.error(.conflict, "door \(terminal) has no standing \(alert) alert (it has \(Self.names(door.alerts)))")
        }
        try await AlertChanges(console: services.console, administration: services.administration, changes: changes.changes(context)).acknowledge(
            door: terminal, alert: alert, at: services.now())
        return APIResponse.json(["door": terminal, "alert": alert, "acknowledged": true])
    }

    func modes(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        APIResponse.json(Self.json(try await services.administration.siteRules().modes))
    }

    /// `PUT /api/v1/modes/site` (`normal`, `lockdown`, `release`) and
    /// `PUT /api/v1/modes/doors/{name}` (the same, or `site`: follow the site's again).
    func setMode(door: Bool) -> @Sendable (Request, APIRequestContext) async throws -> Response {
        { request, context in
            let fields: StrictJSON.Fields
            switch try await APIBody.object(request, allowed: ["mode"]) {
            case .failure(let refusal): return refusal.response
            case .success(let object): fields = object
            }
            let terminal = door ? context.parameters.get("name") : nil
            let choice = fields.string("mode") ?? ""
            let mode = DoorMode(rawValue: choice)
            guard mode != nil || (choice == "site" && terminal != nil) else {
                return APIResponse.error(
                    .badRequest,
                    terminal == nil ? "mode must be normal, lockdown or release" : "mode must be normal, lockdown, release or site (follow the site)")
            }
            do {
                let set = try await ModeChanges(administration: services.administration, changes: changes.changes(context))
                    .set(SetMode(mode, door: terminal, ifDoorUnknown: .refuse), at: services.now())
                return APIResponse.json(Self.json(set.modes))
            } catch let error as UserEditError {
                return APIResponse.error(error.kind == .notFound ? .notFound : .conflict, error.description)
            }
        }
    }

    static func names(_ alerts: [DoorStatusBoard.Alert]) -> String {
        alerts.isEmpty ? "none" : alerts.map(\.name).joined(separator: ", ")
    }

    /// The site's mode and each door's own, with who set it and when.
    static func json(_ modes: DoorModes) -> [String: Any] {
        func setting(_ setting: DoorModes.Setting) -> [String: Any] {
            ["mode": setting.mode.rawValue, "set_by": setting.setBy, "set_at": UTCTimestamp.rfc3339(setting.setAt)]
        }
        return [
            "site": modes.site.map(setting) ?? ["mode": DoorMode.normal.rawValue, "set_by": NSNull(), "set_at": NSNull()],
            "doors": modes.doors.sorted { $0.key < $1.key }.map { door, value in setting(value).merging(["door": door]) { $1 } },
        ]
    }

    /// A door as the API shows it: its state from its records, its alerts, and the mode it is
    /// set to on the site (its own, else the site's) beside the mode it last reported.
    static func json(_ door: DoorStatusBoard.Door, modes: DoorModes) -> [String: Any] {
        let view = door.view
        let setMode = (modes.doors[view.terminalID] ?? modes.site)?.mode ?? .normal
        return [
            "name": view.terminalID, "last_seen": UTCTimestamp.rfc3339(view.lastSeen), "online": !view.alerts.contains("silent"),
            "door": view.door, "keypad": view.keypad, "tamper": view.tamper, "locked_out": view.lockedOut,
            "mode_reported": view.mode, "mode_set": setMode.rawValue,
            "last_decision": view.lastDecision.map { $0 as Any } ?? NSNull(), "last_user": view.lastUser.map { $0 as Any } ?? NSNull(),
            "alerting": door.alerting,
            "alerts": door.alerts.map { alert -> [String: Any] in
                [
                    "name": alert.name, "raised_at": alert.raisedAt.map { UTCTimestamp.rfc3339($0) as Any } ?? NSNull(),
                    "acknowledged_by": alert.acknowledgement.map { $0.admin as Any } ?? NSNull(),
                    "acknowledged_at": alert.acknowledgement.map { UTCTimestamp.rfc3339($0.at) as Any } ?? NSNull(),
                ]
            },
        ]
    }
}
