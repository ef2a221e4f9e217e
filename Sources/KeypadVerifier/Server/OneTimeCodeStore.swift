import Foundation
import KeypadCore

/// Single-use codes with an expiry, kept as salted hashes in a file (one
/// `USER:EXPIRES_UNIX:HASH` line each). A code is printed once when issued; using it
/// removes its line. The file is rewritten atomically (write, fsync, rename).
public final class OneTimeCodeStore: @unchecked Sendable {
    // @unchecked: only used from the ReferenceVerifier actor (and single-threaded CLI).
    public static let hashIterations = 10_000

    public struct Entry: Equatable, Sendable {
        public let user: String
        public let expires: Int
        public let hash: PINHash
    }

    public let path: String
    private let clock: @Sendable () -> Date

    public init(path: String, clock: @escaping @Sendable () -> Date = Date.init) {
        self.path = path
        self.clock = clock
    }

    public func entries() throws -> [Entry] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").enumerated().compactMap { index, line in
            if line.hasPrefix("#") || line.isEmpty { return nil }
            let fields = line.split(separator: ":", maxSplits: 2)
            guard fields.count == 3, let expires = Int(fields[1]) else {
                throw UsersFile.ParseError(source: path, line: index + 1, reason: "expected USER:EXPIRES_UNIX:HASH")
            }
            return Entry(user: String(fields[0]), expires: expires, hash: try PINHash(parsing: fields[2]))
        }
    }

    /// Issues a fresh code of `length` digits for `user`, valid for `ttl`; returns it (the only copy).
    public func issue(user: String, ttl: TimeInterval, length: Int) throws -> SecretDigits {
        let digits = DigitBuffer(capacity: length)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<length { digits.append(UInt8.random(in: 0...9, using: &generator)) }
        let code = digits.take()
        let entry = Entry(
            user: user, expires: Int(clock().timeIntervalSince1970 + ttl),
            hash: try PINHash.make(pin: code, iterations: OneTimeCodeStore.hashIterations))
        try save(live() + [entry])
        return code
    }

    /// If `code` is a live code, removes it and returns its user.
    public func redeem(_ code: SecretDigits) throws -> String? {
        let current = try live()
        var matched: Int?
        for (index, entry) in current.enumerated() where entry.hash.matches(code) { matched = matched ?? index }
        guard let matched else { return nil }
        var remaining = current
        let entry = remaining.remove(at: matched)
        try save(remaining)
        return entry.user
    }

    private func live() throws -> [Entry] {
        let now = Int(clock().timeIntervalSince1970)
        return try entries().filter { $0.expires > now }
    }

    private func save(_ entries: [Entry]) throws {
        let text = "# KioskPad one-time codes: USER:EXPIRES_UNIX:HASH (codes are never stored in clear)\n"
            + entries.map { "\($0.user):\($0.expires):\($0.hash)\n" }.joined()
        try DurableFile.replace(path: path, contents: Array(text.utf8))
    }
}

/// Writes files so that a crash leaves either the old or the new contents.
public enum DurableFile {
    public static func replace(path: String, contents: [UInt8]) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        try contents.withUnsafeBytes { buffer in
            guard write(fd, buffer.baseAddress, buffer.count) == buffer.count, fsync(fd) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        }
        guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
