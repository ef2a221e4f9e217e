import KioskPadCore

/// A door's recent denials as the lockout row's `failures` column keeps them, the same in
/// SQLite and PostgreSQL (schema version 7): seconds since 1970, comma-separated (`''` for
/// none). A part that is not a number is skipped: a lockout is never lifted by a bad row.
public enum LockoutHistory {
    public static func text(_ failures: [Duration]) -> String {
        failures.map { String($0.timeInterval) }.joined(separator: ",")
    }

    public static func failures(_ text: String) -> [Duration] {
        text.split(separator: ",").compactMap { Double($0) }.map { Duration.seconds($0) }
    }
}
