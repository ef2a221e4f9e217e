import Foundation
import KioskPadAccess
import KioskPadCore
import SQLKit
import SiteCore

/// Doors waiting to be adopted (schema version 16 and later): `kioskpad_pairing`.
extension SQLUserDirectory {
    public func announceDoor(_ door: WaitingDoor, now: Date) async throws {
        try await database.write { sql in
            try await Self.dropExpiredPairings(sql, now: now)
            let all = try await sql.raw("SELECT count(*) AS n FROM kioskpad_pairing WHERE state <> 'paired'").first()?.integer("n") ?? 0
            guard all < DoorPairing.maxWaiting else {
                throw PairingRefusal("\(DoorPairing.maxWaiting) doors wait to be adopted already; try again in a few minutes", status: 429)
            }
            let group = DoorPairing.addressGroup(door.address)
            let here =
                try await sql.raw(
                    "SELECT count(*) AS n FROM kioskpad_pairing WHERE state <> 'paired' AND COALESCE(address_group, address) = \(bind: group)"
                ).first()?.integer("n") ?? 0
            guard here < DoorPairing.maxWaitingPerAddress else {
                throw PairingRefusal("\(DoorPairing.maxWaitingPerAddress) doors from \(group) wait to be adopted already", status: 429)
            }
            let key = door.doorKey.base64EncodedString()
            guard try await sql.raw("SELECT 1 FROM kioskpad_pairing WHERE door_key = \(bind: key) AND state <> 'paired'").first() == nil else {
                throw PairingRefusal("door_key: that key waits to be adopted already; a door makes a new key for each announcement", status: 409)
            }
            try await sql.raw(
                """
                INSERT INTO kioskpad_pairing (id, door_key, nonce, pake_message, pake_sid, result_key, tag, address, address_group, hardware, announced_at,
                    expires_at, state, failures)
                VALUES (\(bind: door.id), \(bind: key), \(bind: door.nonce.base64EncodedString()), \(bind: door.pakeMessage.base64EncodedString()),
                    \(bind: door.pakeSID.base64EncodedString()), \(bind: door.resultKey.base64EncodedString()), \(bind: door.tag),
                    \(bind: door.address), \(bind: group), \(bind: door.hardware), \(bind: Int64(door.announced.timeIntervalSince1970)),
                    \(bind: Int64(door.expires.timeIntervalSince1970)), 'waiting', 0)
                """
            ).run()
        }
    }

    public func waitingDoors(now: Date) async throws -> [WaitingDoor] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT id, door_key, nonce, pake_message, pake_sid, result_key, tag, address, hardware, announced_at, expires_at, state, terminal_id, failures FROM kioskpad_pairing
                WHERE expires_at > \(bind: Int64(now.timeIntervalSince1970)) AND state <> 'paired' ORDER BY announced_at, id
                """
            ).all()
        }.map(Self.waitingDoor)
    }

    public func pairing(id: String, now: Date) async throws -> (WaitingDoor, PairingSeal.Sealed?)? {
        guard
            let row = try await database.read({ sql in
                try await sql.raw(
                    """
                    SELECT id, door_key, nonce, pake_message, pake_sid, result_key, tag, address, hardware, announced_at, expires_at, state, terminal_id, failures, site_message,
                        encapsulated_key, ciphertext FROM kioskpad_pairing WHERE id = \(bind: id) AND (expires_at > \(bind: Int64(now.timeIntervalSince1970)) OR state = 'paired')
                    """
                ).first()
            })
        else { return nil }
        let sealed = try row.optionalText("encapsulated_key").map {
            PairingSeal.Sealed(siteMessage: try row.optionalText("site_message") ?? "", encapsulatedKey: $0, ciphertext: try row.text("ciphertext"))
        }
        return (try Self.waitingDoor(row), sealed)
    }

    public func deliverPairing(id: String, terminalID: String, sealed: PairingSeal.Sealed, secret: WebhookSecret, now: Date) async throws {
        try await database.write { sql in
            try await Self.dropExpiredPairings(sql, now: now)
            let taken = try await sql.raw("SELECT 1 FROM kioskpad_doors WHERE terminal_id = \(bind: terminalID) LIMIT 1").first() != nil
            guard !taken else {
                throw PairingRefusal(
                    "name: door '\(terminalID)' has a secret of its own already; pick another name, or `kioskpad verifier terminal remove \(terminalID)` first",
                    status: 409)
            }
            let updated = try await sql.raw(
                """
                UPDATE kioskpad_pairing SET state = 'delivered', terminal_id = \(bind: terminalID), site_message = \(bind: sealed.siteMessage),
                    encapsulated_key = \(bind: sealed.encapsulatedKey), ciphertext = \(bind: sealed.ciphertext)
                WHERE id = \(bind: id) AND state = 'waiting' AND expires_at > \(bind: Int64(now.timeIntervalSince1970)) RETURNING 1
                """
            ).all()
            guard !updated.isEmpty else { throw PairingRefusal("code: that door no longer waits (adopted, or its code ran out)", status: 404) }
            try await sql.raw(
                "INSERT INTO kioskpad_doors (terminal_id, secret, adopted_at) VALUES (\(bind: terminalID), \(bind: secret.text), \(bind: Int64(now.timeIntervalSince1970)))"
            ).run()
        }
    }

    public func pairingNotOpened(id: String) async throws -> Int {
        try await database.write { sql in
            guard
                let given = try await sql.raw("SELECT terminal_id FROM kioskpad_pairing WHERE id = \(bind: id) AND state = 'delivered'").first()?
                    .optionalText("terminal_id")
            else { throw PairingRefusal("no delivery is waiting for that door", status: 404) }
            try await sql.raw("DELETE FROM kioskpad_doors WHERE terminal_id = \(bind: given)").run()
            let failures = Int(
                try await sql.raw(
                    """
                    UPDATE kioskpad_pairing SET state = 'waiting', failures = failures + 1, site_message = NULL, encapsulated_key = NULL, ciphertext = NULL,
                        terminal_id = NULL
                    WHERE id = \(bind: id) RETURNING failures
                    """
                ).first()?.integer("failures") ?? 0)
            if failures >= DoorPairing.maxFailures { try await sql.raw("DELETE FROM kioskpad_pairing WHERE id = \(bind: id)").run() }
            return failures
        }
    }

    public func pairingOpened(id: String) async throws {
        let changed = try await database.changed(
            "UPDATE kioskpad_pairing SET state = 'paired', site_message = NULL, encapsulated_key = NULL, ciphertext = NULL WHERE id = \(bind: id) AND state = 'delivered' RETURNING 1"
        )
        guard changed > 0 else { throw PairingRefusal("no delivery is waiting for that door", status: 404) }
    }

    /// Drops the announcements whose time ran out at `now`, and with a delivery the door never
    /// confirmed, the secret and the name that delivery gave (issue 78): nothing of an
    /// unfinished adoption stays live. Run by every announcement and delivery, and hourly.
    static func dropExpiredPairings(_ sql: any SQLDatabase, now: Date) async throws {
        let expired = Int64(now.timeIntervalSince1970)
        try await sql.raw(
            """
            DELETE FROM kioskpad_doors WHERE terminal_id IN (
                SELECT terminal_id FROM kioskpad_pairing WHERE expires_at <= \(bind: expired) AND state = 'delivered' AND terminal_id IS NOT NULL)
            """
        ).run()
        try await sql.raw("DELETE FROM kioskpad_pairing WHERE expires_at <= \(bind: expired) AND state <> 'paired'").run()
    }

    static func waitingDoor(_ row: any SQLRow) throws -> WaitingDoor {
        let date = { (column: String) throws -> Date in Date(timeIntervalSince1970: TimeInterval(try row.integer(column))) }
        return WaitingDoor(
            id: try row.text("id"), doorKey: Data(base64Encoded: try row.text("door_key")) ?? Data(),
            nonce: Data(base64Encoded: try row.text("nonce")) ?? Data(),
            pakeMessage: Data(base64Encoded: try row.optionalText("pake_message") ?? "") ?? Data(),
            pakeSID: Data(base64Encoded: try row.optionalText("pake_sid") ?? "") ?? Data(),
            resultKey: Data(base64Encoded: try row.optionalText("result_key") ?? "") ?? Data(),
            tag: try row.text("tag"), address: try row.text("address"), hardware: try row.text("hardware"), announced: try date("announced_at"),
            expires: try date("expires_at"), state: WaitingDoor.State(rawValue: try row.text("state")) ?? .waiting,
            terminalID: try row.optionalText("terminal_id"),
            failures: Int(try row.integer("failures")))
    }
}
