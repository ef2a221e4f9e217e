import KioskPadAccess
import SQLKit

/// The rows a value with lookup tag `tag` can match: those with that tag, and those with no
/// tag of its key (untagged, or tagged under an earlier key), which the caller hashes as it
/// always did. Users' PIN and card lines, issued codes and visitor passes are narrowed alike.
enum SQLLookupTags {
    /// `select` (a `SELECT ... WHERE` whose last condition may be followed by `AND`) narrowed
    /// to `tag`'s rows, in `id` order. Four index searches, not a scan: SQLite uses no index
    /// for the `OR` of these conditions, nor for the ranges under an `ORDER BY id`, so the
    /// parts are joined with `UNION ALL` on both engines and put in order here. A tag's rows
    /// carry its key's id, so the parts are disjoint.
    static func rows(_ sql: any SQLDatabase, _ select: SQLQueryString, tag: String) async throws -> [any SQLRow] {
        let keyID = LookupKey.keyID(ofTag: tag)
        let part = select + " AND "
        return try await sql.raw(
            part + "lookup_tag = \(bind: tag) UNION ALL " + part + "lookup_key_id IS NULL UNION ALL " + part
                + "lookup_key_id < \(bind: keyID) UNION ALL " + part + "lookup_key_id > \(bind: keyID)"
        ).all().sorted { ((try? $0.integer("id")) ?? 0) < ((try? $1.integer("id")) ?? 0) }
    }
}
