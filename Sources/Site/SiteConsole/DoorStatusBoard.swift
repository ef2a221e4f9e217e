import Foundation
import SiteCore

/// Every terminal that forwarded records and is not retired, folded into its state now (``DoorView``), with
/// each standing alert and whether an administrator acknowledged it since it was raised:
/// what the console's Doors page and `GET /api/v1/doors` show, read the same way.
struct DoorStatusBoard: Sendable {
    /// Records per door the view is folded from.
    static let recordsPerDoor = 200

    /// One standing alert of a door, and who acknowledged it since it was (last) raised.
    struct Alert: Sendable {
        let name: String
        let raisedAt: Date?
        let acknowledgement: AlertAcknowledgement?
    }

    /// One door's state and its alerts.
    struct Door: Sendable {
        let view: DoorView
        let alerts: [Alert]
        /// Some alert stands that nobody acknowledged.
        var alerting: Bool { alerts.contains { $0.acknowledgement == nil } }
    }

    let services: ConsoleServices
    /// A door not heard from for this long has the `silent` alert.
    let silentAfter: TimeInterval

    /// The doors, only those in `within` when given (an operator limited to door groups).
    func doors(within: Set<String>? = nil) async throws -> [Door] {
        let now = services.now()
        let acknowledged = Dictionary(
            try await services.console.acknowledgements().map { ("\($0.terminal)\u{0}\($0.alert)", $0) }, uniquingKeysWith: { $1 })
        let retired = try await services.store.retiredDoors()
        return try await services.store.recentEvents(perTerminal: Self.recordsPerDoor).compactMap { door in
            guard !retired.contains(door.terminal), within?.contains(door.terminal) ?? true,
                let view = DoorView.fold(terminal: door.terminal, newestFirst: door.newestFirst, now: now, silentAfter: silentAfter)
            else {
                return nil
            }
            let alerts = view.alerts.map { alert in
                let raised = view.raisedAt[alert]
                let ack = acknowledged["\(view.terminalID)\u{0}\(alert)"].flatMap { $0.at >= (raised ?? .distantPast) ? $0 : nil }
                return Alert(name: alert, raisedAt: raised, acknowledgement: ack)
            }
            return Door(view: view, alerts: alerts)
        }
    }
}
