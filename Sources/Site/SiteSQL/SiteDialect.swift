import Foundation
import KioskPadStorage
import SQLKit

/// The few pieces of SQL that cannot be one text on SQLite and PostgreSQL, each named with
/// why. Everything else the stores say once; SQLKit gives each engine its own bind
/// placeholders (`?1` or `$1`).
struct SiteDialect: Sendable {
    let engine: SiteEngine

    /// The text field `key` of the JSON object in `column` (an audit or door record).
    /// SQLite: `json_extract`, the very expression schema version 4's partial indexes are on
    /// (SQLite matches an index by its expression); PostgreSQL: `->>` on its jsonb column.
    func jsonField(_ column: String, _ key: String) -> String {
        engine == .sqlite ? "json_extract(\(column), '$.\(key)')" : "\(column)->>'\(key)'"
    }

    /// A JSON object's text, bound for a `record` column: PostgreSQL's is jsonb, which a
    /// text bind fills only through a cast; SQLite's is text.
    func json(_ text: String) -> SQLQueryString {
        engine == .sqlite ? "\(bind: text)" : "CAST(\(bind: text) AS jsonb)"
    }

    /// A `record` column read back as its JSON text (PostgreSQL keeps jsonb, which the
    /// driver would hand over as binary).
    func jsonText(_ column: String) -> String {
        engine == .sqlite ? column : "\(column)::text AS \(column)"
    }

    /// The audit table's `at` as seconds since 1970: SQLite keeps ISO 8601 text there,
    /// PostgreSQL a timestamptz.
    var auditSeconds: String {
        engine == .sqlite ? "(julianday(at) - 2440587.5) * 86400.0" : "extract(epoch FROM at)::double precision"
    }

    /// `instant`, bound so that it compares with the audit table's `at` (the same text
    /// SQLite's default writes there, or a timestamptz).
    func auditInstant(_ instant: Date) -> SQLQueryString {
        engine == .sqlite
            ? "\(bind: UTCTimestamp.rfc3339(instant, milliseconds: true))" : "to_timestamp(\(bind: instant.timeIntervalSince1970))"
    }

    /// A `created_at` column as UTC text: SQLite's is that text already (written by its
    /// default); PostgreSQL's is a timestamptz, printed to the second.
    func createdText(_ column: String) -> String {
        engine == .sqlite ? column : "to_char(\(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') AS \(column)"
    }

    /// What makes a text column compare and sort byte by byte, as Swift's `<` orders names:
    /// SQLite's default (BINARY) already; PostgreSQL's database collation may not (`en_US`
    /// ignores case and punctuation), so its "C" collation.
    var byteOrder: String {
        engine == .sqlite ? "" : " COLLATE \"C\""
    }

    /// PostgreSQL: `FOR UPDATE`, a row lock another instance's transaction waits for.
    /// SQLite: nothing; its write transaction (`BEGIN IMMEDIATE`) holds the whole file.
    var forUpdate: String {
        engine == .sqlite ? "" : " FOR UPDATE"
    }

    /// PostgreSQL: a lock held from a change's change-log entries to its commit, so entries
    /// take their `seq` in the order their transactions commit: a reader that has seen
    /// position N has seen every entry before it (a sequence alone hands out numbers at insert,
    /// and a later number could commit first). A write that changes who may enter takes it
    /// first too (the replica tables' trigger function, and before any update of the replica
    /// row), so the lock and the replica row are always taken in that order and two
    /// transactions never wait for each other. SQLite: none; one writer at a time already.
    var changeLogOrder: [SQLQueryString] {
        engine == .sqlite ? [] : ["SELECT pg_advisory_xact_lock(7305003)"]
    }

    /// The assignment that marks the open transaction as changing who may enter (schema
    /// version 24): its commit moves the replica's version to a change-log position.
    var replicaPending: String {
        engine == .sqlite ? "pending = 1" : "pending = true"
    }

    /// Statements that make an edit of the site's users and rules the only one under way
    /// across PostgreSQL instances, so a check and the change it allows stay true together
    /// (an advisory lock, and the users table locked against other writers). SQLite: none;
    /// its write transactions already run one at a time.
    var siteEditLocks: [SQLQueryString] {
        engine == .sqlite ? [] : ["SELECT pg_advisory_xact_lock(7305002)", "LOCK TABLE kioskpad_users IN EXCLUSIVE MODE"]
    }
}
