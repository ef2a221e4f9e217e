import Foundation
import KioskPadAccess
import KioskPadCore
import SQLKit
import SiteCore

/// Cards enrolled by presenting them (schema version 15 and later): `kioskpad_card_learning`
/// (a door armed for a user, its result kept) and `kioskpad_unknown_cards` (a card's hash
/// and tags, never its number).
extension SQLUserDirectory {
    public func armCardLearning(door: String, user: String, by admin: String, now: Date) async throws -> CardLearningArm {
        let (armed, expires) = (Int64(now.timeIntervalSince1970), Int64(now.addingTimeInterval(CardLearning.armedSeconds).timeIntervalSince1970))
        try await database.write { sql in
            guard try await sql.raw("SELECT 1 FROM kioskpad_users WHERE name = \(bind: user) LIMIT 1").first() != nil else {
                throw UserEditError(description: "user: there is no user '\(user)'")
            }
            try await sql.raw(
                """
                INSERT INTO kioskpad_card_learning (door, user_name, armed_by, armed_at, expires_at) VALUES (\(bind: door), \(bind: user),
                    \(bind: admin), \(bind: armed), \(bind: expires))
                ON CONFLICT (door) DO UPDATE SET user_name = excluded.user_name, armed_by = excluded.armed_by, armed_at = excluded.armed_at,
                    expires_at = excluded.expires_at, result = NULL, result_at = NULL
                """
            ).run()
        }
        return CardLearningArm(
            door: door, user: user, armedBy: admin, armed: Date(timeIntervalSince1970: TimeInterval(armed)),
            expires: Date(timeIntervalSince1970: TimeInterval(expires)), result: nil, resultAt: nil)
    }

    public func cardLearning(user: String) async throws -> [CardLearningArm] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT door, user_name, armed_by, armed_at, expires_at, result, result_at FROM kioskpad_card_learning
                WHERE user_name = \(bind: user) ORDER BY armed_at DESC
                """
            ).all()
        }.map { row in
            let date = { (column: String) throws -> Date? in
                try row.decodeNil(column: column) ? nil : Date(timeIntervalSince1970: TimeInterval(try row.integer(column)))
            }
            return CardLearningArm(
                door: try row.text("door"), user: try row.text("user_name"), armedBy: try row.text("armed_by"),
                armed: try date("armed_at") ?? .distantPast, expires: try date("expires_at") ?? .distantPast, result: try row.optionalText("result"),
                resultAt: try date("result_at"))
        }
    }

    public func unknownCards(since: Date) async throws -> [UnknownCard] {
        try await database.read { sql in
            try await sql.raw(
                "SELECT id, door, seen_at, digits FROM kioskpad_unknown_cards WHERE seen_at >= \(bind: Int64(since.timeIntervalSince1970)) ORDER BY id DESC"
            ).all()
        }.map { row in
            UnknownCard(
                id: try row.integer("id"), door: try row.text("door"), seen: Date(timeIntervalSince1970: TimeInterval(try row.integer("seen_at"))),
                digits: Int(try row.integer("digits")))
        }
    }

    public func claimUnknownCard(id: Int64, user: String) async throws -> String {
        try await database.write { sql in
            guard try await sql.raw("SELECT 1 FROM kioskpad_users WHERE name = \(bind: user) LIMIT 1").first() != nil else {
                throw UserEditError(description: "user: there is no user '\(user)'")
            }
            guard
                let row = try await sql.raw(
                    "DELETE FROM kioskpad_unknown_cards WHERE id = \(bind: id) RETURNING door, hash, lookup_tag, replica_tag, digits"
                ).first()
            else { throw UserEditError(description: "unknown_card: there is no unknown card \(id) (claimed already, or older than a day)") }
            let card = UnknownCardHash(
                hash: try PINHash(parsing: try row.text("hash")), lookupTag: try row.optionalText("lookup_tag"),
                replicaTag: try row.optionalText("replica_tag"), digits: Int(try row.integer("digits")))
            try await SQLAttemptTransaction.insertCard(user: user, card, sql)
            return try row.text("door")
        }
    }
}

extension SQLAttemptTransaction {
    func cardLearner(door: String, now: Date) async throws -> String? {
        try await database.raw(
            """
            SELECT user_name FROM kioskpad_card_learning
            WHERE door = \(bind: door) AND result IS NULL AND expires_at > \(bind: Int64(now.timeIntervalSince1970))
            """
        ).first().map { try $0.text("user_name") }
    }

    func finishCardLearning(door: String, result: String, now: Date) async throws {
        try await database.raw(
            "UPDATE kioskpad_card_learning SET result = \(bind: result), result_at = \(bind: Int64(now.timeIntervalSince1970)) WHERE door = \(bind: door)"
        ).run()
    }

    func addCard(user: String, _ card: UnknownCardHash) async throws -> Bool {
        guard try await database.raw("SELECT 1 FROM kioskpad_users WHERE name = \(bind: user) LIMIT 1").first() != nil else { return false }
        try await Self.insertCard(user: user, card, database)
        try await logDoorChange(user: user)
        return true
    }

    func noteUnknownCard(door: String, _ card: UnknownCardHash, now: Date) async throws {
        let seconds = Int64(now.timeIntervalSince1970)
        try await database.raw(
            """
            INSERT INTO kioskpad_unknown_cards (door, seen_at, hash, lookup_tag, replica_tag, digits)
            VALUES (\(bind: door), \(bind: seconds), \(bind: card.hash.description), \(bind: card.lookupTag), \(bind: card.replicaTag), \(bind: Int64(card.digits)))
            """
        ).run()
        // The newest few per door, for a day.
        try await database.raw(
            """
            DELETE FROM kioskpad_unknown_cards WHERE door = \(bind: door) AND (seen_at < \(bind: seconds - Int64(CardLearning.unknownKeptSeconds))
                OR id NOT IN (SELECT id FROM kioskpad_unknown_cards WHERE door = \(bind: door) ORDER BY id DESC LIMIT \(bind: Int64(CardLearning.unknownKept))))
            """
        ).run()
    }

    /// `card` as one of `user`'s card lines, with its lookup tag and replica tag.
    static func insertCard(user: String, _ card: UnknownCardHash, _ sql: any SQLDatabase) async throws {
        try await sql.raw(insertUserLine(UserRecord(name: user, pinHash: card.hash, card: true, lookupTag: card.lookupTag))).run()
        if let replicaTag = card.replicaTag {
            try await sql.raw(
                "UPDATE kioskpad_users SET replica_tag = \(bind: replicaTag) WHERE name = \(bind: user) AND kind = 'card' AND hash = \(bind: card.hash.description)"
            ).run()
        }
    }
}
