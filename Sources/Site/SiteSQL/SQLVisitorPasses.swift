import Foundation
import KioskPadAccess
import KioskPadCore
import SQLKit
import SiteCore

/// Visitor passes in `kioskpad_visitor_passes` (schema version 14 and later): issued under the
/// site's edit lock, so the names a pass was checked against stay until it is stored.
extension SQLUserDirectory {
    public func issueVisitorPass(
        _ request: VisitorPassRequest, hash: PINHash, lookupTag: String?, now: Date, limits: VisitorPassLimits, issuedBy: String
    ) async throws -> VisitorPass {
        let locks = database.dialect.siteEditLocks
        return try await database.write { sql in
            for lock in locks { try await sql.raw(lock).run() }
            let site = SQLSiteRulesTransaction(sql: sql)
            let zone = Self.zone(try await Self.zoneName(sql))
            try request.check(now: now, zone: zone, maxDays: limits.maxDays)
            guard try await sql.raw("SELECT 1 FROM kioskpad_users WHERE name = \(bind: request.host) LIMIT 1").first() != nil else {
                throw UserEditError(description: "host: there is no user '\(request.host)'; a pass's host is a user of the site")
            }
            let levels = try await site.accessLevels().levels
            if let missing = request.levels.first(where: { levels[$0] == nil }) {
                let known = levels.keys.sorted()
                throw UserEditError(
                    description:
                        "levels: there is no access level '\(missing)' (\(known.isEmpty ? "the site has none" : "known: " + known.joined(separator: ", ")))")
            }
            if let schedule = request.schedule,
                try await sql.raw("SELECT 1 FROM kioskpad_schedules WHERE name = \(bind: schedule)").first() == nil
            {
                throw UserEditError(description: "schedule: there is no schedule '\(schedule)'; `kioskpad verifier schedule list` shows them")
            }
            let live = try await Self.livePasses(sql, host: request.host, now: now)
            if let problem = limits.problem(host: request.host, hostLive: live.host, siteLive: live.site) {
                throw UserEditError(description: problem)
            }
            if let lookupTag, try await Self.tagInUse(sql, lookupTag) { throw CodeTagInUse() }
            let rule = request.rule(now: now, zone: zone)
            let endsAt = Int64(VisitorPassRequest.instant(request.validUntil.end, in: zone).timeIntervalSince1970)
            let issued = Int64(now.timeIntervalSince1970)
            guard
                let row = try await sql.raw(
                    """
                    INSERT INTO kioskpad_visitor_passes (visitor, host, hash, rule, max_uses, ends_at, issued_at, issued_by, lookup_tag, lookup_key_id)
                    VALUES (\(bind: request.visitor), \(bind: request.host), \(bind: hash.description), \(bind: rule.text),
                        \(bind: request.maxUses.map(Int64.init)), \(bind: endsAt), \(bind: issued), \(bind: issuedBy),
                        \(bind: lookupTag), \(bind: lookupTag.map(LookupKey.keyID(ofTag:))))
                    RETURNING id
                    """
                ).first()
            else { throw SiteStoreFailure("database: the visitor pass was not stored") }
            return VisitorPass(
                id: try row.integer("id"), visitor: request.visitor, host: request.host, rule: rule, maxUses: request.maxUses, uses: 0,
                issued: Date(timeIntervalSince1970: TimeInterval(issued)), issuedBy: issuedBy)
        }
    }

    /// The live passes (not revoked, with a use left, not ended at `now`) of `host` and of
    /// the whole site, as ``VisitorPassLimits`` counts them.
    static func livePasses(_ sql: any SQLDatabase, host: String, now: Date) async throws -> (host: Int, site: Int) {
        let row = try await sql.raw(
            """
            SELECT count(*) AS site, COALESCE(SUM(CASE WHEN host = \(bind: host) THEN 1 ELSE 0 END), 0) AS host
            FROM kioskpad_visitor_passes
            WHERE revoked_at IS NULL AND ends_at > \(bind: Int64(now.timeIntervalSince1970)) AND (max_uses IS NULL OR uses < max_uses)
            """
        ).first()
        return (Int(try row?.integer("host") ?? 0), Int(try row?.integer("site") ?? 0))
    }

    public func visitorPasses(since: Date) async throws -> (passes: [VisitorPass], zone: TimeZone) {
        let seconds = Int64(since.timeIntervalSince1970)
        let (rows, zoneName) = try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.passColumns) FROM kioskpad_visitor_passes
                WHERE ends_at > \(bind: seconds) AND (revoked_at IS NULL OR revoked_at > \(bind: seconds))
                ORDER BY id DESC
                """
            ).all()
            return (rows, try await Self.zoneName(sql))
        }
        return (try rows.map(Self.pass), Self.zone(zoneName))
    }

    public func visitorPass(id: Int64) async throws -> (pass: VisitorPass, zone: TimeZone)? {
        let (row, zoneName) = try await database.read { sql in
            let row = try await sql.raw("SELECT \(unsafeRaw: Self.passColumns) FROM kioskpad_visitor_passes WHERE id = \(bind: id)").first()
            return (row, try await Self.zoneName(sql))
        }
        return try row.map { (try Self.pass($0), Self.zone(zoneName)) }
    }

    public func revokeVisitorPass(id: Int64, now: Date) async throws -> Bool {
        try await database.changed(
            "UPDATE kioskpad_visitor_passes SET revoked_at = \(bind: Int64(now.timeIntervalSince1970)) WHERE id = \(bind: id) AND revoked_at IS NULL RETURNING 1"
        ) > 0
    }

    private static func zoneName(_ sql: any SQLDatabase) async throws -> String? {
        try await sql.raw("SELECT value FROM kioskpad_site WHERE key = 'time_zone'").first().map { try $0.text("value") }
    }

    /// The site's zone as its decisions read it: UTC until one is set.
    private static func zone(_ name: String?) -> TimeZone {
        name.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
    }

    private static let passColumns = "id, visitor, host, rule, max_uses, uses, issued_at, issued_by, revoked_at, last_used_at, last_door"

    private static func pass(_ row: any SQLRow) throws -> VisitorPass {
        let date = { (column: String) throws -> Date? in
            try row.decodeNil(column: column) ? nil : Date(timeIntervalSince1970: TimeInterval(try row.integer(column)))
        }
        return VisitorPass(
            id: try row.integer("id"), visitor: try row.text("visitor"), host: try row.text("host"), rule: try row.accessRule("rule"),
            maxUses: try row.decodeNil(column: "max_uses") ? nil : Int(try row.integer("max_uses")), uses: Int(try row.integer("uses")),
            issued: try date("issued_at") ?? Date(timeIntervalSince1970: 0), issuedBy: try row.text("issued_by"), revoked: try date("revoked_at"),
            lastUsed: try date("last_used_at"), lastDoor: try row.optionalText("last_door"))
    }
}
