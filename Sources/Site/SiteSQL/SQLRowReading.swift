import KioskPadAccess
import KioskPadCore
import SQLKit
import SiteCore

/// Typed columns out of a row, with an error naming the column that did not fit (never its value).
extension SQLRow {
    func text(_ column: String) throws -> String {
        try value(column, as: String.self)
    }

    func optionalText(_ column: String) throws -> String? {
        try decodeNil(column: column) ? nil : try text(column)
    }

    func integer(_ column: String) throws -> Int64 {
        try value(column, as: Int64.self)
    }

    func optionalInteger(_ column: String) throws -> Int64? {
        try decodeNil(column: column) ? nil : try integer(column)
    }

    func double(_ column: String) throws -> Double {
        try value(column, as: Double.self)
    }

    func optionalDouble(_ column: String) throws -> Double? {
        try decodeNil(column: column) ? nil : try double(column)
    }

    /// A user line from the columns `name, kind, hash, lookup_tag, totp_secret`.
    func userRecord() throws -> UserRecord {
        UserRecord(
            name: try text("name"), kind: try text("kind"), pinHash: try PINHash(parsing: try text("hash")),
            totpSecret: try optionalText("totp_secret").flatMap(TOTP.base32Decode), lookupTag: try optionalText("lookup_tag"))
    }

    /// The lockout tracker in the columns `failures, streak, locked_until`.
    func lockoutTracker(policy: LockoutPolicy) throws -> LockoutTracker {
        LockoutTracker(
            policy: policy, failureTimes: LockoutHistory.failures(try text("failures")), streak: Int(try integer("streak")),
            lockedUntil: try optionalDouble("locked_until").map { Duration.seconds($0) })
    }

    /// The access rule in `column`, as the users file writes it.
    func accessRule(_ column: String) throws -> AccessRule {
        let text = try text(column)
        do {
            return try AccessRule(text: text)
        } catch {
            throw SiteStoreFailure("database: the access rule '\(text)' cannot be read (\(error))")
        }
    }

    private func value<T: Decodable>(_ column: String, as type: T.Type) throws -> T {
        do {
            return try decode(column: column, as: T.self)
        } catch {
            throw SiteStoreFailure("database: column \(column) does not hold what it should")
        }
    }
}

/// The columns of a user line, in the order ``SQLRow/userRecord()`` reads them.
let userColumns = "name, kind, hash, lookup_tag, totp_secret"
