import Foundation
import Hummingbird
import SiteCore

/// The Doors page: every terminal that forwarded records, folded into its state now
/// (``DoorView``), with its alerts and who acknowledged them. The page polls
/// `doors.json` every 2 s, so it stays live without a reload.
extension ConsoleHandler {
    /// The doors `visit`'s administrator may see (``DoorScopes``); nil: every door.
    func visibleDoors(_ visit: Visit) async throws -> Set<String>? {
        guard visit.session.doorGroups != nil else { return nil }
        return DoorScopes.doors(of: visit.actor, site: try await services.administration.siteRules())
    }

    /// The doors' rows, only those in `within` when given (``visibleDoors(_:)``).
    func doorRows(within: Set<String>?) async throws -> [[String: Any]] {
        let zone = try await siteZone()
        return try await DoorStatusBoard(services: services, silentAfter: options.silentAfter).doors(within: within).map { door in
            let view = door.view
            let alerts: [[String: Any]] = door.alerts.map { alert in
                [
                    "name": alert.name, "acknowledged": alert.acknowledgement != nil, "by": alert.acknowledgement?.admin ?? "",
                    "terminal": view.terminalID,
                ]
            }
            let decision = view.lastDecision.map { decision in view.lastUser.map { "\(decision) (\($0))" } ?? decision } ?? ""
            return [
                "terminal": view.terminalID, "lastSeen": ConsoleTime.local(view.lastSeen, zone), "online": !view.alerts.contains("silent"),
                "door": view.door, "keypad": view.keypad, "tamper": view.tamper, "lockedOut": view.lockedOut, "mode": view.mode, "lastDecision": decision,
                "alerts": alerts, "alerting": door.alerting,
            ]
        }
    }

    func doorsPage(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        let within = try await visibleDoors(visit)
        var data: [String: Any] = [
            "doors": try await doorRows(within: within), "silentMinutes": Int(options.silentAfter / 60),
            "commands": try await doorCommandRows(within: within),
        ]
        // The doors waiting, their secrets, settings and the replica key: for those who manage doors.
        if visit.actor.may(.manageDoors) {
            let settings = try await settingsRows()
            data.merge(
                ["waiting": try await waitingRows(), "keys": try await doorKeyRows(), "settings": settings.rows, "settingsVersion": settings.version]
            ) { $1 }
            if let replicaKey = try await replicaKeyData(visit) { data["replicaKey"] = replicaKey }
        }
        return ConsoleResponse.page(
            "doors", title: "Doors", page: "doors", visit: visit, data: data,
            notice: form["done"].flatMap { Self.doorsNotices[$0] })
    }

    static let doorsNotices = [
        "acknowledged": "Alert acknowledged.",
        "unlock-sent": "Unlock sent: a door holding the push channel opens within a second; the list below shows when it took it and what it did.",
        "lock-sent": "Lock sent: the door ends its unlock when it takes it.", "adopted": "Sealed for the door: it shows it is paired within seconds.",
        "rotated": "A new secret waits for the door: it picks it up at its next check-in; its old secret works until then.",
        "retired": "Door retired: its requests are refused from now on.",
        "settings": "Settings changed: each adopted door picks them up at its next check-in.",
        "replica-rotated": "Next replica key made: each adopted door learns it at its next check-in; finish once every door holds it.",
        "replica-finished": "The site signs with the new replica key: each adopted door drops the old one at its next check-in.",
    ]

    func doorsJSON(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        ConsoleResponse.json(["doors": try await doorRows(within: try await visibleDoors(context.visit))])
    }

    func acknowledge(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let door = form.text("door"), let alert = form.text("alert"), DoorView.alertNames.contains(alert) else {
            return ConsoleResponse.message(
                "An acknowledgement needs a door and one of the alerts \(DoorView.alertNames.joined(separator: ", ")).", title: "Not acknowledged",
                status: .badRequest, visit: visit, link: "/console/doors")
        }
        try await AlertChanges(console: services.console, administration: services.administration, changes: changes(visit)).acknowledge(
            door: door, alert: alert, at: services.now())
        return ConsoleResponse.redirect("/console/doors?done=acknowledged")
    }
}
