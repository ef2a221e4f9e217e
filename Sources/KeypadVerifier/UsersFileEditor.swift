import DurableStorage
import Foundation
import KeypadCore
#if canImport(Glibc)
import Glibc
#endif

/// Changes a users file one user at a time (`kioskpad verifier user ...`), so nobody edits
/// it by hand. Each change holds an exclusive lock (`FILE.lock`, so two edits at once both
/// land), checks the new text parses as a users file, and replaces the file atomically with
/// its owner and mode kept: a running verifier reads the old list or the new one, never half.
/// Lines it does not change (comments, other users, cards) are kept as they were.
public struct UsersFileEditor: Sendable {
    /// One user as `user list` shows it; never a hash or a secret.
    public struct Summary: Equatable, Sendable {
        public let name: String
        public let hasPIN: Bool
        public let hasTOTP: Bool
        public let hasDuressPIN: Bool
        public let cards: Int

        public init(name: String, hasPIN: Bool, hasTOTP: Bool, hasDuressPIN: Bool, cards: Int) {
            self.name = name
            self.hasPIN = hasPIN
            self.hasTOTP = hasTOTP
            self.hasDuressPIN = hasDuressPIN
            self.cards = cards
        }
    }

    /// A change that cannot be made, naming the user and the file.
    public struct EditError: Error, Equatable, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Adds `name` with its PIN hash (and lookup tag); refused when the user already has a PIN line.
    public func add(name: String, hash: PINHash, tag: String? = nil) throws {
        try edit(creating: true) { lines in
            guard !lines.contains(where: { $0.isPIN(of: name) }) else {
                throw EditError(description: "user '\(name)' is already in \(path); `kioskpad verifier user set-pin \(name)` changes the PIN")
            }
            lines.append(UsersFileEditor.line(name: name, hash: hash, tag: tag))
        }
    }

    /// Removes every line of `name` (PIN, duress PIN, cards); returns how many.
    @discardableResult
    public func remove(name: String) throws -> Int {
        var removed = 0
        try edit { lines in
            let before = lines.count
            lines.removeAll { $0.fields(of: name) != nil }
            removed = before - lines.count
            guard removed > 0 else { throw EditError(description: "no user '\(name)' in \(path)") }
        }
        return removed
    }

    /// Replaces the PIN hash (and lookup tag) on `name`'s PIN line, keeping its TOTP secret.
    public func setPIN(name: String, hash: PINHash, tag: String? = nil) throws {
        try editPINLine(of: name) { fields in
            fields[1] = hash.description
            fields.removeAll { $0.hasPrefix("tag=") }
            if let tag { fields.append("tag=" + tag) }
        }
    }

    /// Sets `name`'s duress PIN (and lookup tag), replacing an earlier one; `name` must
    /// have a PIN line.
    public func setDuress(name: String, hash: PINHash, tag: String? = nil) throws {
        try edit { lines in
            _ = try pinLine(of: name, in: lines)
            lines.removeAll { $0.isLine(of: name, option: "duress") }
            lines.append(UsersFileEditor.line(name: name, hash: hash, option: "duress", tag: tag))
        }
    }

    /// Adds a card for `name`: the hash of its number (and lookup tag) on a `:card` line.
    public func addCard(name: String, hash: PINHash, tag: String? = nil) throws {
        try edit(creating: true) { lines in
            lines.append(UsersFileEditor.line(name: name, hash: hash, option: "card", tag: tag))
        }
    }

    /// Removes `name`'s card whose number is `value` (each card line's hash is checked).
    public func removeCard(name: String, value: SecretDigits) throws {
        try edit { lines in
            let before = lines.count
            lines.removeAll { line in
                guard line.isLine(of: name, option: "card") else { return false }
                let hash = line.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)[1]
                return (try? PINHash(parsing: hash))?.matches(value) == true
            }
            guard lines.count < before else { throw EditError(description: "user '\(name)' has no card with that number in \(path)") }
        }
    }

    /// Gives `name` a TOTP secret (replacing any earlier one) on its PIN line.
    public func setTOTP(name: String, secret: [UInt8]) throws {
        try editPINLine(of: name) { fields in
            fields.removeAll { $0.hasPrefix("totp=") }
            fields.append("totp=" + TOTP.base32Encode(secret))
        }
    }

    /// Every user in file order, with what they have (no hashes, no secrets).
    public func list() throws -> [Summary] {
        let users = try UsersFile.load(path: path).users
        var names: [String] = []
        for user in users where !names.contains(user.name) { names.append(user.name) }
        return names.map { name in
            let lines = users.filter { $0.name == name }
            return Summary(
                name: name, hasPIN: lines.contains { !$0.duress && !$0.card },
                hasTOTP: lines.contains { $0.totpSecret != nil }, hasDuressPIN: lines.contains(where: \.duress),
                cards: lines.count { $0.card })
        }
    }

    /// A new line: `NAME:HASH`, then `option` (duress or card) and the tag, when given.
    private static func line(name: String, hash: PINHash, option: String? = nil, tag: String?) -> String {
        ([UsersFile.line(name: name, hash: hash)] + [option, tag.map { "tag=" + $0 }].compactMap { $0 }).joined(separator: ":")
    }

    /// Lets `change` edit the `:`-separated fields of `name`'s PIN line.
    private func editPINLine(of name: String, _ change: (inout [String]) -> Void) throws {
        try edit { lines in
            let index = try pinLine(of: name, in: lines)
            var fields = lines[index].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            change(&fields)
            lines[index] = fields.joined(separator: ":")
        }
    }

    private func pinLine(of name: String, in lines: [String]) throws -> Int {
        guard let index = lines.firstIndex(where: { $0.isPIN(of: name) }) else {
            throw EditError(description: "no user '\(name)' with a PIN in \(path); `kioskpad verifier user add \(name)` adds one")
        }
        return index
    }

    /// Reads the file under the lock, lets `change` edit its lines, checks and writes them.
    private func edit(creating: Bool = false, _ change: (inout [String]) throws -> Void) throws {
        let lock = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw StateFileError(path: path + ".lock", doing: "create the lock file", errno: errno) }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { throw StateFileError(path: path + ".lock", doing: "lock", errno: errno) }
        }
        var status = stat()
        let exists = stat(path, &status) == 0
        let statError = errno
        guard exists || (creating && statError == ENOENT) else {
            guard statError == ENOENT else { throw StateFileError(path: path, doing: "read", errno: statError) }
            throw EditError(description: "there is no users file \(path) yet; `kioskpad verifier user add NAME` creates it")
        }
        var text = ""
        if exists {
            do {
                text = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw EditError(description: "cannot read \(path): \(error.localizedDescription)")
            }
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        try change(&lines)
        let updated = lines.map { $0 + "\n" }.joined()
        // Never write a file the verifier would refuse.
        _ = try UsersFile(parsing: updated, source: path)
        try DurableFile.replace(
            path: path, contents: Array(updated.utf8), mode: exists ? status.st_mode & 0o7777 : 0o600,
            owner: exists ? (status.st_uid, status.st_gid) : nil)
    }
}

extension String {
    /// True for `name`'s PIN line (not its duress or card lines).
    fileprivate func isPIN(of name: String) -> Bool {
        guard let fields = fields(of: name) else { return false }
        return !fields.contains { $0 == "duress" || $0 == "card" }
    }

    /// True for a line of `name` with `option` (`duress` or `card`).
    fileprivate func isLine(of name: String, option: String) -> Bool {
        fields(of: name)?.contains { $0 == option } == true
    }

    /// The options of `name`'s line (after NAME:HASH), or nil for another line.
    fileprivate func fields(of name: String) -> ArraySlice<Substring>? {
        let trimmed = trimmingCharacters(in: .whitespaces)
        guard !trimmed.hasPrefix("#") else { return nil }
        let fields = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        return fields.count >= 2 && fields[0] == name ? fields.dropFirst(2) : nil
    }
}
