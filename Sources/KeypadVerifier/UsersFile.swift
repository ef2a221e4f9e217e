import Foundation

/// One person who may open the door with a PIN.
public struct UserRecord: Equatable, Sendable {
    public let name: String
    public let pinHash: PINHash

    public init(name: String, pinHash: PINHash) {
        self.name = name
        self.pinHash = pinHash
    }
}

/// The users file: one `NAME:HASH` line per user (`kioskpad pin hash --user NAME` makes
/// one); blank lines and lines starting with `#` are ignored. Names are letters, digits,
/// `.`, `_` and `-`.
public struct UsersFile: Equatable, Sendable {
    public let users: [UserRecord]

    /// A problem in a users file, naming the file and line.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let source: String
        public let line: Int
        public let reason: String
        public var description: String { "\(source) line \(line): \(reason)" }
    }

    public init(users: [UserRecord]) {
        self.users = users
    }

    public init(parsing text: String, source: String) throws {
        var users: [UserRecord] = []
        var seen: Set<String> = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fail = { (reason: String) in ParseError(source: source, line: index + 1, reason: reason) }
            guard let colon = line.firstIndex(of: ":") else {
                throw fail("expected NAME:HASH (make a line with `kioskpad pin hash --user NAME`)")
            }
            let name = String(line[..<colon])
            guard UsersFile.isValidName(name) else {
                throw fail("user name '\(name)' must be 1-64 of letters, digits, '.', '_' or '-'")
            }
            guard seen.insert(name).inserted else { throw fail("user '\(name)' is listed twice") }
            do {
                users.append(UserRecord(name: name, pinHash: try PINHash(parsing: line[line.index(after: colon)...])))
            } catch let error as PINHash.FormatError {
                throw fail("user '\(name)': \(error)")
            }
        }
        self.init(users: users)
    }

    public static func load(path: String) throws -> UsersFile {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ParseError(source: path, line: 0, reason: "cannot read the users file (\(error.localizedDescription))")
        }
        return try UsersFile(parsing: text, source: path)
    }

    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.count)
            && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }
    }

    /// The line for `name` as it belongs in the file.
    public static func line(name: String, hash: PINHash) -> String {
        "\(name):\(hash)"
    }
}
