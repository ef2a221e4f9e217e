import Foundation
import KeypadCore

/// One person who may open the door with a PIN (and, optionally, a TOTP code).
public struct UserRecord: Equatable, Sendable {
    public let name: String
    public let pinHash: PINHash
    /// RFC 6238 secret for authenticator-app codes (`:totp=BASE32` on the line).
    public let totpSecret: [UInt8]?

    public init(name: String, pinHash: PINHash, totpSecret: [UInt8]? = nil) {
        self.name = name
        self.pinHash = pinHash
        self.totpSecret = totpSecret
    }
}

/// The users file: one `NAME:HASH` line per user (`kioskpad pin hash --user NAME` makes
/// one), optionally followed by `:totp=BASE32SECRET`; blank lines and lines starting with
/// `#` are ignored. Names are letters, digits, `.`, `_` and `-`.
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
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count >= 2 else {
                throw fail("expected NAME:HASH (make a line with `kioskpad pin hash --user NAME`)")
            }
            let name = String(fields[0])
            guard UsersFile.isValidName(name) else {
                throw fail("user name '\(name)' must be 1-64 of letters, digits, '.', '_' or '-'")
            }
            guard seen.insert(name).inserted else { throw fail("user '\(name)' is listed twice") }
            var totp: [UInt8]?
            for option in fields.dropFirst(2) {
                guard option.hasPrefix("totp="), let secret = TOTP.base32Decode(String(option.dropFirst(5))), secret.count >= 10 else {
                    throw fail("user '\(name)': '\(option.prefix(5))...' is not a known option; valid: totp=BASE32SECRET (at least 16 base32 characters)")
                }
                totp = secret
            }
            do {
                users.append(UserRecord(name: name, pinHash: try PINHash(parsing: fields[1]), totpSecret: totp))
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
        Identifier.isValid(name)
    }

    /// The line for `name` as it belongs in the file.
    public static func line(name: String, hash: PINHash) -> String {
        "\(name):\(hash)"
    }
}
