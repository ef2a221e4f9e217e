import Foundation
import Hummingbird
import SiteCore

/// The Doors page: every terminal that forwarded records, folded into its state now
/// (``DoorView``), with its alerts and who acknowledged them. The page polls
/// `doors.json` every 2 s, so it stays live without a reload.
extension ConsoleHandler {
    /// Records per door the view is folded from.
    static let recordsPerDoor = 200

    func doorRows() async throws -> [[String: Any]] {
        let now = services.now()
        let zone = try await siteZone()
        let acknowledged = Dictionary(
            try await services.console.acknowledgements().map { ("\($0.terminal)\u{0}\($0.alert)", $0) }, uniquingKeysWith: { $1 })
        return try await services.store.recentEvents(perTerminal: ConsoleHandler.recordsPerDoor).compactMap { door -> [String: Any]? in
            guard let view = DoorView.fold(terminal: door.terminal, newestFirst: door.newestFirst, now: now, silentAfter: options.silentAfter) else {
                return nil
            }
            var open = false
            let alerts: [[String: Any]] = view.alerts.map { alert in
                let ack = acknowledged["\(view.terminalID)\u{0}\(alert)"]
                let covered = ack.map { $0.at >= (view.raisedAt[alert] ?? .distantPast) } ?? false
                if !covered { open = true }
                return ["name": alert, "acknowledged": covered, "by": covered ? ack?.admin ?? "" : "", "terminal": view.terminalID]
            }
            let decision = view.lastDecision.map { decision in view.lastUser.map { "\(decision) (\($0))" } ?? decision } ?? ""
            return [
                "terminal": view.terminalID, "lastSeen": ConsoleTime.local(view.lastSeen, zone), "online": !view.alerts.contains("silent"),
                "door": view.door, "keypad": view.keypad, "tamper": view.tamper, "lockedOut": view.lockedOut, "mode": view.mode, "lastDecision": decision,
                "alerts": alerts, "alerting": open,
            ]
        }
    }

    func doorsPage(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        return ConsoleResponse.page(
            "doors", title: "Doors", page: "doors", visit: visit,
            data: ["doors": try await doorRows(), "silentMinutes": Int(options.silentAfter / 60)],
            notice: form["done"] == "acknowledged" ? "Alert acknowledged." : nil)
    }

    func doorsJSON(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        ConsoleResponse.json(["doors": try await doorRows()])
    }

    func acknowledge(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let door = form.text("door"), let alert = form.text("alert"), DoorView.alertNames.contains(alert) else {
            return ConsoleResponse.message(
                "An acknowledgement needs a door and one of the alerts \(DoorView.alertNames.joined(separator: ", ")).", title: "Not acknowledged",
                status: .badRequest, visit: visit, link: "/console/doors")
        }
        try await change(visit, .alertAcknowledge, [("terminal_id", door), ("alert", alert)]) {
            try await services.console.acknowledge(terminal: door, alert: alert, admin: visit.admin, at: services.now())
        }
        return ConsoleResponse.redirect("/console/doors?done=acknowledged")
    }
}
