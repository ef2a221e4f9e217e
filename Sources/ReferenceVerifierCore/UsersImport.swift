import KeypadVerifier

/// `kioskpad verifier import`: which lines of a users file to add to the database. A user
/// the database does not have is added whole; one it has with the same lines (hashes, tags,
/// TOTP secret) is left alone, so a second run adds nothing; one it has with other lines is
/// a clash, and one clash adds nothing at all.
public enum UsersImport {
    /// The users whose lines differ between the file and the database, each named.
    public struct Clash: Error, Equatable, CustomStringConvertible {
        public let users: [String]
        public var description: String {
            users.map { "user '\($0)' is in the database with other lines (PIN, duress PIN, cards or TOTP secret)" }
                .joined(separator: "\n")
        }
    }

    /// The lines of `file` to add to a database that holds `existing`; throws ``Clash``.
    public static func plan(_ file: UsersFile, existing: [UserRecord]) throws -> [UserRecord] {
        let have = Dictionary(grouping: existing, by: \.name)
        var adding: [UserRecord] = []
        var clashes: [String] = []
        var seen: Set<String> = []
        for user in file.users where seen.insert(user.name).inserted {
            let lines = file.users.filter { $0.name == user.name }
            guard let stored = have[user.name] else {
                adding += lines
                continue
            }
            if !sameLines(lines, stored) { clashes.append(user.name) }
        }
        guard clashes.isEmpty else { throw Clash(users: clashes) }
        return adding
    }

    /// The same lines in any order (each line's kind, hash, tag and TOTP secret).
    private static func sameLines(_ a: [UserRecord], _ b: [UserRecord]) -> Bool {
        let key = { (user: UserRecord) in
            "\(user.duress) \(user.card) \(user.pinHash) \(user.lookupTag ?? "-") \(user.totpSecret.map { TOTP.base32Encode($0) } ?? "-")"
        }
        return a.map(key).sorted() == b.map(key).sorted()
    }
}
