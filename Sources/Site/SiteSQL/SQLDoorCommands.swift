import Foundation
import KioskPadAccess
import SQLKit
import SiteCore

/// Remote commands (`kioskpad_door_commands`, schema version 26): stored by
/// ``RemoteDoorCommands`` inside its change's transaction, read and marked by the push channel.
extension SQLUserDirectory {
    public func addDoorCommand(
        terminal: String, action: DoorCommand.Action, seconds: Int?, reason: String, admin: String, issuedAt: Date, expiresAt: Date
    ) async throws -> Int64 {
        let row = try await database.write { sql in
            try await sql.raw(
                """
                INSERT INTO kioskpad_door_commands (terminal_id, action, seconds, reason, admin, issued_at, expires_at)
                VALUES (\(bind: terminal), \(bind: action.rawValue), \(bind: seconds.map(Int64.init)), \(bind: reason), \(bind: admin),
                    \(bind: issuedAt.timeIntervalSince1970), \(bind: expiresAt.timeIntervalSince1970))
                RETURNING id
                """
            ).first()
        }
        guard let row else { throw SiteStoreFailure("database: the door command was not stored") }
        return try row.integer("id")
    }

    public func liveDoorCommands(terminal: String, after: Int64, now: Date) async throws -> [StoredDoorCommand] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.commandColumns) FROM kioskpad_door_commands
                WHERE terminal_id = \(bind: terminal) AND id > \(bind: after) AND expires_at > \(bind: now.timeIntervalSince1970) ORDER BY id LIMIT 16
                """
            ).all()
        }.map(Self.command)
    }

    public func liveDoorCommandsIssued(now: Date) async throws -> [(id: Int64, terminal: String)] {
        try await database.read { sql in
            try await sql.raw(
                "SELECT id, terminal_id FROM kioskpad_door_commands WHERE expires_at > \(bind: now.timeIntervalSince1970) ORDER BY id LIMIT 1000"
            ).all()
        }.map { (try $0.integer("id"), try $0.text("terminal_id")) }
    }

    public func markDoorCommandsDelivered(terminal: String, through: Int64, at: Date) async throws {
        try await database.write { sql in
            try await sql.raw(
                """
                UPDATE kioskpad_door_commands SET delivered_at = \(bind: at.timeIntervalSince1970)
                WHERE terminal_id = \(bind: terminal) AND id <= \(bind: through) AND delivered_at IS NULL
                """
            ).run()
        }
    }

    public func recordDoorCommandResult(terminal: String, id: Int64, result: String) async throws {
        try await database.write { sql in
            try await sql.raw(
                "UPDATE kioskpad_door_commands SET result = \(bind: result) WHERE terminal_id = \(bind: terminal) AND id = \(bind: id) AND result IS NULL"
            ).run()
        }
    }

    public func recentDoorCommands(terminal: String?, limit: Int) async throws -> [StoredDoorCommand] {
        try await database.read { sql in
            guard let terminal else {
                return try await sql.raw("SELECT \(unsafeRaw: Self.commandColumns) FROM kioskpad_door_commands ORDER BY id DESC LIMIT \(bind: Int64(limit))")
                    .all()
            }
            return try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.commandColumns) FROM kioskpad_door_commands WHERE terminal_id = \(bind: terminal)
                ORDER BY id DESC LIMIT \(bind: Int64(limit))
                """
            ).all()
        }.map(Self.command)
    }

    private static let commandColumns = "id, terminal_id, action, seconds, reason, admin, issued_at, expires_at, delivered_at, result"

    private static func command(_ row: any SQLRow) throws -> StoredDoorCommand {
        guard let action = DoorCommand.Action(rawValue: try row.text("action")) else {
            throw SiteStoreFailure("database: a door command's action is not unlock or lock")
        }
        return StoredDoorCommand(
            id: try row.integer("id"), terminalID: try row.text("terminal_id"), action: action, seconds: try row.optionalInteger("seconds").map(Int.init),
            reason: try row.text("reason"), admin: try row.text("admin"), issuedAt: Date(timeIntervalSince1970: try row.double("issued_at")),
            expiresAt: Date(timeIntervalSince1970: try row.double("expires_at")),
            deliveredAt: try row.optionalDouble("delivered_at").map(Date.init(timeIntervalSince1970:)), result: try row.optionalText("result"))
    }
}
