import Foundation
import KioskPadAccess
import SQLKit
import SiteCore

/// Doors that ask for a card and then its holder's PIN (`kioskpad_door_card_pin`, one row
/// per `terminal_id`), inside one transaction.
extension SQLSiteRulesTransaction {
    func cardAndPINRules() async throws -> [String: CardAndPINRule] {
        try await doorRules("kioskpad_door_card_pin", what: "card-and-PIN rule", CardAndPINRule.init(rule:))
    }

    func writeCardAndPIN(door: String, rule: CardAndPINRule?) async throws {
        try await writeDoorRule("kioskpad_door_card_pin", door: door, rule: rule.map { ($0.rule, $0.schedule) })
    }

    /// `door`'s rule with its schedule's spec and the site's zone (and, for a scheduled rule,
    /// the holidays around `instant`), in one query; nil: the door asks for one factor.
    func cardAndPIN(door: String, at instant: Date) async throws -> CardAndPINAccess? {
        let row = try await sql.raw(
            """
            SELECT c.rule, s.spec, (SELECT value FROM kioskpad_site WHERE key = 'time_zone') AS zone
            FROM kioskpad_door_card_pin c LEFT JOIN kioskpad_schedules s ON s.name = c.schedule WHERE c.terminal_id = \(bind: door)
            """
        ).first()
        guard let row else { return nil }
        let rule = try row.text("rule")
        return CardAndPINAccess(
            ruleText: rule, scheduleSpec: try row.optionalText("spec"), timeZone: try row.optionalText("zone") ?? "UTC",
            holidays: rule == "always" ? [] : try await holidays(near: instant))
    }
}
