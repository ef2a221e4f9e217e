import Foundation
import KioskPadAccess
import KioskPadCore
import SQLKit
import SiteCore

/// The reference verifier's state in a ``SiteDatabase``: one SQLite file (one instance) or
/// one PostgreSQL database shared by several. An attempt's hashes are checked against rows
/// read without a lock; its claims (the request's id, a one-time code, a TOTP step), its
/// terminal's lockout and its audit record are then one write transaction, committed before
/// the answer is sent:
/// - a `webhook-id` is a primary key, so a request replayed to another instance is refused;
/// - the terminal's lockout row is held (PostgreSQL: `FOR UPDATE`; SQLite: the file's one
///   writer), so the instances keep one exact count;
/// - a code is used up, and a TOTP step claimed, by an `UPDATE` whose condition only one
///   transaction can meet, so each opens the door once at most.
/// Any database error or timeout throws (the terminal is answered 503).
public final class SQLVerifierStore: VerifierStore {
    public let database: any SiteDatabase
    /// Who wrote an audit row (e.g. `host:port`).
    public let instance: String
    /// How long a `webhook-id` is remembered.
    public let replayWindow: TimeInterval
    /// How much may wait per webhook subscription (`server.webhooks.max_pending`, `_bytes`).
    public let webhookQueue: WebhookQueueLimits

    public init(
        database: any SiteDatabase, instance: String, replayWindow: TimeInterval = ReplayWindow.seconds, webhookQueue: WebhookQueueLimits = WebhookQueueLimits()
    ) {
        self.database = database
        self.instance = instance
        self.replayWindow = replayWindow
        self.webhookQueue = webhookQueue
    }

    /// With a tag: its rows and the untagged ones (``SQLLookupTags``), not a scan.
    public func users(lookupTag: String?, keyID: String?) async throws -> UsersFile {
        let rows = try await database.read { sql in
            let select: SQLQueryString = "SELECT id, \(unsafeRaw: userColumns) FROM kioskpad_users WHERE enabled"
            guard let lookupTag, keyID != nil else { return try await sql.raw(select + " ORDER BY id").all() }
            return try await SQLLookupTags.rows(sql, select, tag: lookupTag)
        }
        return UsersFile(users: try rows.map { try $0.userRecord() })
    }

    public func lines(of name: String) async throws -> UsersFile {
        let rows = try await database.read { sql in
            try await sql.raw("SELECT \(unsafeRaw: userColumns) FROM kioskpad_users WHERE enabled AND name = \(bind: name) ORDER BY id").all()
        }
        return UsersFile(users: try rows.map { try $0.userRecord() })
    }

    public func cardAndPIN(door: String, at instant: Date) async throws -> CardAndPINAccess? {
        try await database.read { try await SQLSiteRulesTransaction(sql: $0).cardAndPIN(door: door, at: instant) }
    }

    public func replicaTagKey() async throws -> ReplicaTagKey? {
        let text = try await database.read { sql in
            try await sql.raw("SELECT tag_key FROM kioskpad_replica WHERE id = 1").first()?.optionalText("tag_key")
        }
        return text.flatMap { Data(base64Encoded: $0) }.flatMap { $0.count == 32 ? ReplicaTagKey(raw: Array($0)) : nil }
    }

    public func totpUsers() async throws -> [UserRecord] {
        try await database.read { sql in
            try await sql.raw(
                "SELECT \(unsafeRaw: userColumns) FROM kioskpad_users WHERE enabled AND kind = 'pin' AND totp_secret IS NOT NULL ORDER BY id"
            ).all()
        }.map { try $0.userRecord() }
    }

    public func liveCodes(now: Date, lookupTag: String?) async throws -> [IssuedCode] {
        try await liveCodes(now: now, purpose: "entry", lookupTag: lookupTag)
    }

    public func liveEnrolmentCodes(now: Date, lookupTag: String?) async throws -> [IssuedCode] {
        try await liveCodes(now: now, purpose: "enrol", lookupTag: lookupTag)
    }

    private func liveCodes(now: Date, purpose: String, lookupTag: String?) async throws -> [IssuedCode] {
        let seconds = Int64(now.timeIntervalSince1970)
        return try await database.read { sql in
            // With a tag, `+expires_at` leaves the key's indexes to choose the rows: SQLite would
            // otherwise scan the live index for the parts of other keys (every live code).
            let (expires, columns) = (lookupTag == nil ? "expires_at" : "+expires_at", "SELECT id, user_name, hash, door FROM kioskpad_codes")
            let select: SQLQueryString =
                "\(unsafeRaw: columns) WHERE used_at IS NULL AND \(unsafeRaw: expires) > \(bind: seconds) AND purpose = \(bind: purpose)"
            guard let lookupTag else { return try await sql.raw(select + " ORDER BY id").all() }
            return try await SQLLookupTags.rows(sql, select, tag: lookupTag)
        }.map { row in
            IssuedCode(
                id: try row.integer("id"), user: try row.text("user_name"), hash: try PINHash(parsing: try row.text("hash")),
                door: try row.optionalText("door"))
        }
    }

    public func liveVisitorPasses(now: Date, lookupTag: String?) async throws -> [IssuedVisitorPass] {
        let since = Int64(now.timeIntervalSince1970) - 86_400
        return try await database.read { sql in
            // `+ends_at` with a tag, as for codes: the key's indexes choose the rows.
            let (ends, columns) = (lookupTag == nil ? "ends_at" : "+ends_at", "SELECT id, visitor, host, hash, rule FROM kioskpad_visitor_passes")
            let select: SQLQueryString =
                "\(unsafeRaw: columns) WHERE revoked_at IS NULL AND \(unsafeRaw: ends) > \(bind: since) AND (max_uses IS NULL OR uses < max_uses)"
            guard let lookupTag else { return try await sql.raw(select + " ORDER BY id").all() }
            return try await SQLLookupTags.rows(sql, select, tag: lookupTag)
        }.map { row in
            IssuedVisitorPass(
                id: try row.integer("id"), visitor: try row.text("visitor"), host: try row.text("host"),
                hash: try PINHash(parsing: try row.text("hash")), ruleText: try row.text("rule"))
        }
    }

    public func doorKey(terminal: String) async throws -> DoorKey {
        let row = try await database.read { sql in
            try await sql.raw(
                "SELECT secret, next_secret, previous_secret, replaced_at, retired_at, rotation_deadline FROM kioskpad_doors WHERE terminal_id = \(bind: terminal)"
            ).first()
        }
        guard let row else { return .siteSecret }
        return try Self.doorKey(row)
    }

    /// The key a `kioskpad_doors` row gives (`secret`, `next_secret`, `previous_secret`,
    /// `replaced_at`, `retired_at`, `rotation_deadline`).
    static func doorKey(_ row: any SQLRow) throws -> DoorKey {
        if try row.optionalInteger("retired_at") != nil { return .retired }
        var previous: DoorKey.Replaced?
        if let text = try row.optionalText("previous_secret"), let at = try row.optionalInteger("replaced_at") {
            previous = DoorKey.Replaced(secret: try WebhookSecret(parsing: text), at: Date(timeIntervalSince1970: TimeInterval(at)))
        }
        return .own(
            try WebhookSecret(parsing: try row.text("secret")), next: try row.optionalText("next_secret").map { try WebhookSecret(parsing: $0) },
            previous: previous, rotationDeadline: try row.optionalInteger("rotation_deadline").map { Date(timeIntervalSince1970: TimeInterval($0)) })
    }

    public func retiredDoors() async throws -> Set<String> {
        Set(
            try await database.read { sql in
                try await sql.raw("SELECT terminal_id FROM kioskpad_doors WHERE retired_at IS NOT NULL").all()
            }.map { try $0.text("terminal_id") })
    }

    public func finishRotation(terminal: String, next: WebhookSecret, now: Date) async throws -> Bool {
        try await database.changed(
            """
            UPDATE kioskpad_doors SET previous_secret = secret, replaced_at = \(bind: Int64(now.timeIntervalSince1970)), secret = next_secret,
                next_secret = NULL, rotation_deadline = NULL
            WHERE terminal_id = \(bind: terminal) AND next_secret = \(bind: next.text) AND retired_at IS NULL RETURNING 1
            """) > 0
    }

    public func lockout(terminal: String, policy: LockoutPolicy) async throws -> LockoutTracker {
        try await database.read { try await Self.lockout(terminal: terminal, policy: policy, $0) }
    }

    public func commitAttempt<R: Sendable>(
        terminal: String, policy: LockoutPolicy, _ body: @escaping @Sendable (inout LockoutTracker, any AttemptTransaction) async throws -> R
    ) async throws -> R {
        try await database.write { [self] sql in
            let transaction = attempt(sql)
            // The row first, so that even a terminal's first attempt has one to hold.
            try await sql.raw("INSERT INTO kioskpad_lockout (terminal_id) VALUES (\(bind: terminal)) ON CONFLICT (terminal_id) DO NOTHING").run()
            var tracker = try await Self.lockout(terminal: terminal, policy: policy, sql, lock: transaction.dialect.forUpdate)
            let result = try await body(&tracker, transaction)
            try await sql.raw(
                """
                UPDATE kioskpad_lockout SET failures = \(bind: LockoutHistory.text(tracker.failureTimes)), streak = \(bind: Int64(tracker.streak)),
                    locked_until = \(bind: tracker.lockedUntil?.timeInterval) WHERE terminal_id = \(bind: terminal)
                """
            ).run()
            return result
        }
    }

    public func storeEvents(_ events: [DoorEvent]) async throws -> Int {
        let dialect = database.dialect
        let now = Date()
        return try await database.write { [self] sql in
            var stored = 0
            for event in events {
                let inserted = try await sql.raw(
                    """
                    INSERT INTO kioskpad_events (id, terminal_id, type, at, seq, record)
                    VALUES (\(bind: event.id), \(bind: event.terminalID), \(bind: event.type), \(bind: event.time.timeIntervalSince1970),
                        \(bind: Int64(event.sequence)), \(dialect.json(event.json)))
                    ON CONFLICT (id) DO NOTHING RETURNING 1
                    """
                ).all().count
                stored += inserted
                if inserted > 0, let message = WebhookMessage.forDoorRecord(event, now: now) {
                    try await SQLWebhookStore.queue(message, in: sql, now: now, limits: webhookQueue)
                }
                if inserted > 0, let fields = OfflineDecisions.auditFields(event) { try await attempt(sql).audit(fields) }
            }
            return stored
        }
    }

    public func recentEvents(perTerminal limit: Int) async throws -> [(terminal: String, newestFirst: [DoorEvent])] {
        let record = database.dialect.jsonText("record")
        return try await database.read { sql in
            var doors: [(terminal: String, newestFirst: [DoorEvent])] = []
            for row in try await sql.raw(Self.doorsWithRecords).all() {
                let terminal = try row.text("id")
                let rows = try await sql.raw(
                    """
                    SELECT id, type, at, seq, \(unsafeRaw: record) FROM kioskpad_events WHERE terminal_id = \(bind: terminal)
                    ORDER BY at DESC, seq DESC LIMIT \(bind: Int64(limit))
                    """
                ).all()
                let events = try rows.map { row in
                    DoorEvent(
                        id: try row.text("id"), terminalID: terminal, type: try row.text("type"), time: Date(timeIntervalSince1970: try row.double("at")),
                        sequence: Int(try row.integer("seq")), json: try row.text("record"))
                }
                doors.append((terminal, events))
            }
            return doors
        }
    }

    /// Also deletes webhook deliveries finished (delivered or given up) before `cutoff`, and
    /// adoptions left unfinished past their time (``SQLUserDirectory/dropExpiredPairings(_:now:)``).
    public func pruneEvents(before cutoff: Date, after future: Date) async throws -> Int {
        _ = try await database.changed("DELETE FROM kioskpad_webhook_deliveries WHERE finished_at < \(bind: cutoff.timeIntervalSince1970) RETURNING 1")
        try await database.write { try await SQLUserDirectory.dropExpiredPairings($0, now: Date()) }
        return try await database.changed(
            "DELETE FROM kioskpad_events WHERE at < \(bind: cutoff.timeIntervalSince1970) OR at > \(bind: future.timeIntervalSince1970) RETURNING 1")
    }

    public func keptAnswer(requestID id: String, now: Date) async throws -> KeptAnswer? {
        let seconds = Int64(now.timeIntervalSince1970)
        let kept = try await database.read { sql in
            try await sql.raw(
                "SELECT answer FROM kioskpad_replay WHERE webhook_id = \(bind: id) AND expires_at > \(bind: seconds)"
            ).first()?.optionalText("answer")
        }
        return kept.map(KeptAnswer.init(encoded:))
    }

    public func claimRequestID(_ id: String, now: Date) async throws -> Bool {
        try await database.writeEach { [self] in try await attempt($0).claimRequestID(id, now: now) }
    }

    /// Appends an audit record on its own; one a webhook carries is queued with it, in one
    /// transaction.
    public func audit(_ fields: [(String, String)]) async throws {
        if WebhookEventType.forAudit(fields) != nil {
            try await database.write { [self] in try await attempt($0).audit(fields) }
        } else {
            try await database.writeEach { [self] in try await attempt($0).audit(fields) }
        }
    }

    public func healthProblem() async -> String? {
        await database.healthProblem()
    }

    /// `terminal`'s lockout row as a tracker (a new one when it has none); `lock` follows the
    /// query (``SiteDialect/forUpdate`` inside an attempt).
    private static func lockout(terminal: String, policy: LockoutPolicy, _ sql: any SQLDatabase, lock: String = "") async throws -> LockoutTracker {
        try await sql.raw("SELECT failures, streak, locked_until FROM kioskpad_lockout WHERE terminal_id = \(bind: terminal)\(unsafeRaw: lock)").first()?
            .lockoutTracker(policy: policy) ?? LockoutTracker(policy: policy)
    }

    /// Every door with forwarded records, sorted, read as a skip scan of the (terminal_id, at)
    /// index (one index probe per door) instead of a DISTINCT over every record.
    private static let doorsWithRecords: SQLQueryString = """
        WITH RECURSIVE doors(id) AS (
            SELECT min(terminal_id) FROM kioskpad_events
            UNION ALL
            SELECT (SELECT min(terminal_id) FROM kioskpad_events WHERE terminal_id > doors.id) FROM doors WHERE doors.id IS NOT NULL
        )
        SELECT id FROM doors WHERE id IS NOT NULL
        """

    /// The statements of one attempt (or one claim, one audit record) in the transaction `sql`.
    private func attempt(_ sql: any SQLDatabase) -> SQLAttemptTransaction {
        SQLAttemptTransaction(database: sql, instance: instance, replayWindow: replayWindow, dialect: database.dialect, webhookQueue: webhookQueue)
    }
}

/// One attempt's claims and audit record, inside its write transaction.
struct SQLAttemptTransaction: AttemptTransaction {
    let database: any SQLDatabase
    let instance: String
    let replayWindow: TimeInterval
    let dialect: SiteDialect
    /// How much may wait per webhook subscription.
    let webhookQueue: WebhookQueueLimits

    /// Inserts the id, or takes over a row whose window has passed (its kept answer dropped);
    /// false for a live id.
    func claimRequestID(_ id: String, now: Date) async throws -> Bool {
        let seconds = Int64(now.timeIntervalSince1970)
        let claimed =
            try await database.raw(
                """
                INSERT INTO kioskpad_replay (webhook_id, expires_at) VALUES (\(bind: id), \(bind: seconds + Int64(replayWindow)))
                ON CONFLICT (webhook_id) DO UPDATE SET expires_at = excluded.expires_at, answer = NULL WHERE kioskpad_replay.expires_at <= \(bind: seconds)
                RETURNING 1
                """
            ).all().count > 0
        if claimed && Int.random(in: 0..<64) == 0 {
            // Now and then (1 request in 64 on average): forget the ids whose window passed.
            try await database.raw("DELETE FROM kioskpad_replay WHERE expires_at <= \(bind: seconds)").run()
        }
        return claimed
    }

    func keepAnswer(requestID id: String, _ answer: KeptAnswer) async throws {
        try await database.raw(
            "UPDATE kioskpad_replay SET answer = \(bind: answer.encoded) WHERE webhook_id = \(bind: id)"
        ).run()
    }

    func claimTOTPStep(user: String, step: Int) async throws -> Bool {
        try await database.raw(
            """
            UPDATE kioskpad_users SET totp_last_step = \(bind: Int64(step))
            WHERE name = \(bind: user) AND kind = 'pin' AND (totp_last_step IS NULL OR totp_last_step < \(bind: Int64(step)))
            RETURNING 1
            """
        ).all().count > 0
    }

    func useCode(id: Int64, now: Date) async throws -> Bool {
        let seconds = Int64(now.timeIntervalSince1970)
        return try await database.raw(
            "UPDATE kioskpad_codes SET used_at = \(bind: seconds) WHERE id = \(bind: id) AND used_at IS NULL AND expires_at > \(bind: seconds) RETURNING 1"
        ).all().count > 0
    }

    func access(user name: String, door: String, at instant: Date) async throws -> UserAccess? {
        try await SQLSiteRulesTransaction(sql: database).access(user: name, door: door, at: instant)
    }

    func access(pass: IssuedVisitorPass, door: String, at instant: Date) async throws -> (access: UserAccess, hostActive: Bool) {
        try await SQLSiteRulesTransaction(sql: database).access(pass: pass, door: door, at: instant)
    }

    func useVisitorPass(id: Int64, door: String, now: Date) async throws -> Bool {
        let seconds = Int64(now.timeIntervalSince1970)
        return try await database.raw(
            """
            UPDATE kioskpad_visitor_passes SET uses = uses + 1, last_used_at = \(bind: seconds), last_door = \(bind: door)
            WHERE id = \(bind: id) AND revoked_at IS NULL AND (max_uses IS NULL OR uses < max_uses) RETURNING 1
            """
        ).all().count > 0
    }

    func setPIN(user: String, hash: PINHash, tag: String?, replicaTag: String?) async throws -> Bool {
        if try await database.raw(updatePINLine(name: user, hash: hash, tag: tag, replicaTag: replicaTag)).all().count > 0 {
            try await logDoorChange(user: user)
            return true
        }
        // A user with cards only: the chosen PIN is their first PIN line.
        guard try await database.raw("SELECT 1 FROM kioskpad_users WHERE name = \(bind: user) LIMIT 1").first() != nil else { return false }
        try await database.raw(insertUserLine(UserRecord(name: user, pinHash: hash, lookupTag: tag))).run()
        try await database.raw("UPDATE kioskpad_users SET replica_tag = \(bind: replicaTag) WHERE name = \(bind: user) AND kind = 'pin'").run()
        try await logDoorChange(user: user)
        return true
    }

    /// The change-log entry of a change a door's attempt made to `user` (a card learned, a PIN
    /// chosen there), in the attempt's transaction: the replica's version moves to it, and it
    /// names whom the change was of.
    func logDoorChange(user: String) async throws {
        try await SQLVerifierStore.insertChangeLog(
            [ChangeLogEntry(kind: .user, subject: user, cause: .door)], instance: instance, order: dialect.changeLogOrder, on: database)
    }

    /// The record, and the webhook message that carries it (if one does) queued for every
    /// subscription that wants it, in this transaction.
    func audit(_ fields: [(String, String)]) async throws {
        try await database.raw(
            "INSERT INTO kioskpad_audit (instance, record) VALUES (\(bind: instance), \(dialect.json(try AuditRecordJSON.encode(fields))))"
        ).run()
        let now = Date()
        if let message = try WebhookMessage.forAudit(fields, now: now) {
            try await SQLWebhookStore.queue(message, in: database, now: now, limits: webhookQueue)
        }
    }
}
