import Foundation
import KioskPadAccess
import SQLKit
import SiteCore

/// The settings a site gives its adopted doors (schema version 18 and later):
/// `kioskpad_settings`, `kioskpad_settings_version`, `kioskpad_door_settings_state`.
extension SQLUserDirectory {
    public func settings(scope: String) async throws -> DoorSettings {
        let body = try await database.read { sql in
            try await sql.raw("SELECT body FROM kioskpad_settings WHERE scope = \(bind: scope)").first().map { try $0.text("body") }
        }
        return try body.map { try DoorSettings(json: $0) } ?? DoorSettings()
    }

    public func setSettings(scope: String, _ settings: DoorSettings) async throws -> Int64 {
        let body = settings.json
        return try await database.write { sql in
            if settings.values.isEmpty {
                try await sql.raw("DELETE FROM kioskpad_settings WHERE scope = \(bind: scope)").run()
            } else {
                try await sql.raw(
                    "INSERT INTO kioskpad_settings (scope, body) VALUES (\(bind: scope), \(bind: body)) ON CONFLICT (scope) DO UPDATE SET body = \(bind: body)"
                ).run()
            }
            return try await sql.raw("UPDATE kioskpad_settings_version SET version = version + 1 WHERE id = 1 RETURNING version").first()?
                .integer("version") ?? 0
        }
    }

    public func allSettings() async throws -> (version: Int64, byScope: [String: DoorSettings]) {
        let (version, rows) = try await database.read { sql in
            let version = try await sql.raw("SELECT version FROM kioskpad_settings_version WHERE id = 1").first()?.integer("version") ?? 0
            return (version, try await sql.raw("SELECT scope, body FROM kioskpad_settings").all().map { (try $0.text("scope"), try $0.text("body")) })
        }
        return (version, Dictionary(uniqueKeysWithValues: try rows.map { ($0.0, try DoorSettings(json: $0.1)) }))
    }

    public func effectiveSettings(door: String) async throws -> (version: Int64, settings: DoorSettings) {
        let (version, rows) = try await database.read { sql in
            let version = try await sql.raw("SELECT version FROM kioskpad_settings_version WHERE id = 1").first()?.integer("version") ?? 0
            let rows = try await sql.raw(
                "SELECT scope, body FROM kioskpad_settings WHERE scope IN (\(bind: DoorSettings.siteScope), \(bind: door))"
            ).all().map { (try $0.text("scope"), try $0.text("body")) }
            return (version, rows)
        }
        let site = try rows.first { $0.0 == DoorSettings.siteScope }.map { try DoorSettings(json: $0.1) } ?? DoorSettings()
        let own = try rows.first { $0.0 == door }.map { try DoorSettings(json: $0.1) } ?? DoorSettings()
        return (version, site.overlaid(by: own))
    }

    /// Written only when the report changed (a door checks in every minute with the same one).
    public func noteSettings(door: String, running: Int64, refused: (version: Int64, reason: String)?, replicaKeys: String, now: Date) async throws {
        let at = Int64(now.timeIntervalSince1970)
        try await database.write { sql in
            try await sql.raw(
                """
                INSERT INTO kioskpad_door_settings_state (terminal_id, running, refused_version, refused_reason, replica_keys, reported_at)
                VALUES (\(bind: door), \(bind: running), \(bind: refused?.version), \(bind: refused?.reason), \(bind: replicaKeys), \(bind: at))
                ON CONFLICT (terminal_id) DO UPDATE SET running = \(bind: running), refused_version = \(bind: refused?.version),
                    refused_reason = \(bind: refused?.reason), replica_keys = \(bind: replicaKeys), reported_at = \(bind: at)
                WHERE kioskpad_door_settings_state.running <> excluded.running
                    OR kioskpad_door_settings_state.refused_version IS DISTINCT FROM excluded.refused_version
                    OR kioskpad_door_settings_state.refused_reason IS DISTINCT FROM excluded.refused_reason
                    OR kioskpad_door_settings_state.replica_keys IS DISTINCT FROM excluded.replica_keys
                """
            ).run()
        }
    }

    public func settingsStates() async throws -> [String: DoorSettingsState] {
        let rows = try await database.read { sql in
            try await sql.raw("SELECT terminal_id, running, refused_version, refused_reason, replica_keys FROM kioskpad_door_settings_state").all()
        }
        var states: [String: DoorSettingsState] = [:]
        for row in rows {
            let door = try row.text("terminal_id")
            var refused: (version: Int64, reason: String)?
            if let version = try row.optionalInteger("refused_version") { refused = (version, try row.optionalText("refused_reason") ?? "") }
            let keys = (try row.optionalText("replica_keys") ?? "").split(separator: " ").map(String.init)
            states[door] = DoorSettingsState(terminalID: door, running: try row.integer("running"), refused: refused, replicaKeys: keys)
        }
        return states
    }
}
