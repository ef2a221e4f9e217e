import Foundation
import SQLKit
import SiteCore

/// A check-in's one read (``DoorCheckInView``): `kioskpad_replica`'s row, with the door's
/// row of `kioskpad_doors` and `kioskpad_door_settings_state` beside it when they exist, the
/// settings version and bodies, and whether `kioskpad_events` holds a record of the door;
/// and what the push channel reads to tell doors to check in (``ReplicaVersionWatch/CheckInSignals``).
extension SQLUserDirectory {
    public func checkInView(door: String) async throws -> DoorCheckInView {
        let site = DoorSettings.siteScope
        let row = try await database.read { sql in
            try await sql.raw(
                """
                SELECT d.terminal_id AS door, d.secret, d.next_secret, d.previous_secret, d.replaced_at, d.retired_at, d.rotation_deadline,
                    r.signing_key, r.next_signing_key,
                    (SELECT version FROM kioskpad_settings_version WHERE id = 1) AS settings_version,
                    (SELECT body FROM kioskpad_settings WHERE scope = \(bind: site)) AS site_settings,
                    (SELECT body FROM kioskpad_settings WHERE scope = \(bind: door)) AS door_settings,
                    n.terminal_id AS reported, n.running, n.refused_version, n.refused_reason, n.replica_keys,
                    CASE WHEN EXISTS (SELECT 1 FROM kioskpad_events WHERE terminal_id = \(bind: door)) THEN 1 ELSE 0 END AS forwarded
                FROM kioskpad_replica r
                LEFT JOIN kioskpad_doors d ON d.terminal_id = \(bind: door)
                LEFT JOIN kioskpad_door_settings_state n ON n.terminal_id = \(bind: door)
                WHERE r.id = 1
                """
            ).first()
        }
        guard let row else { throw SiteStoreFailure("database: the replica row is missing") }
        func key(_ column: String) throws -> [UInt8]? {
            guard let stored = try row.optionalText(column) else { return nil }
            guard let raw = Self.rawKey(stored) else { throw SiteStoreFailure("database: the replica's \(column) is not 32 bytes") }
            return raw
        }
        var reported: DoorSettingsState?
        if try row.optionalText("reported") != nil {
            var refused: (version: Int64, reason: String)?
            if let version = try row.optionalInteger("refused_version") { refused = (version, try row.optionalText("refused_reason") ?? "") }
            let keys = (try row.optionalText("replica_keys") ?? "").split(separator: " ").map(String.init)
            reported = DoorSettingsState(terminalID: door, running: try row.integer("running"), refused: refused, replicaKeys: keys)
        }
        return DoorCheckInView(
            key: try row.optionalText("door") == nil ? .siteSecret : try SQLVerifierStore.doorKey(row),
            signingKey: try key("signing_key"), nextSigningKey: try key("next_signing_key"),
            settingsVersion: try row.optionalInteger("settings_version") ?? 0,
            siteSettings: try row.optionalText("site_settings").map { try DoorSettings(json: $0) } ?? DoorSettings(),
            doorSettings: try row.optionalText("door_settings").map { try DoorSettings(json: $0) } ?? DoorSettings(),
            reported: reported, hasForwarded: try row.integer("forwarded") != 0)
    }

    public func checkInSignals() async throws -> ReplicaVersionWatch.CheckInSignals {
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                SELECT s.version, d.terminal_id FROM kioskpad_settings_version s
                LEFT JOIN kioskpad_doors d ON d.next_secret IS NOT NULL AND d.retired_at IS NULL
                WHERE s.id = 1
                """
            ).all()
        }
        return ReplicaVersionWatch.CheckInSignals(
            settingsVersion: try rows.first?.integer("version") ?? 0, rotating: Set(try rows.compactMap { try $0.optionalText("terminal_id") }))
    }
}
