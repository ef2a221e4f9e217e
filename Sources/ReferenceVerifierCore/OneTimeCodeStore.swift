import DurableStorage
import Foundation
import KeypadCore
import KeypadVerifier

/// Single-use codes with an expiry, kept as salted hashes in a file (one
/// `USER:EXPIRES_UNIX:HASH` line each). A code is printed once when issued; using it
/// removes its line. Every read-modify-write holds an exclusive `flock` on `PATH.lock`, so
/// `kioskpad verifier code issue` may run while the server redeems: a code is granted at
/// most once and every issued code is kept. The file is replaced atomically.
public final class OneTimeCodeStore: Sendable {
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
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw StateFileError(path: path, doing: "read", errno: EACCES)
        }
        return try text.split(separator: "\n").enumerated().compactMap { index, line in
            if line.hasPrefix("#") || line.isEmpty { return nil }
            let fields = line.split(separator: ":", maxSplits: 2)
            guard fields.count == 3, let expires = Int(fields[1]) else {
                throw LineError(path: path, line: index + 1, reason: "expected USER:EXPIRES_UNIX:HASH")
            }
            do {
                return Entry(user: String(fields[0]), expires: expires, hash: try PINHash(parsing: fields[2]))
            } catch {
                throw LineError(path: path, line: index + 1, reason: "\(error)")
            }
        }
    }

    /// A line of the codes file that is not `USER:EXPIRES_UNIX:HASH`.
    public struct LineError: Error, Equatable, CustomStringConvertible {
        public let path: String
        public let line: Int
        public let reason: String
        public var description: String { "\(path) line \(line): \(reason)" }
    }

    /// Issues a fresh code of `length` digits for `user`, valid for `ttl`; returns it (the only copy).
    public func issue(user: String, ttl: TimeInterval, length: Int) throws -> SecretDigits {
        let code = OneTimeCodeStore.newCode(length: length)
        let entry = Entry(
            user: user, expires: Int(clock().timeIntervalSince1970 + ttl),
            hash: try PINHash.make(pin: code, iterations: OneTimeCodeStore.hashIterations))
        try locked { try save(live() + [entry]) }
        return code
    }

    /// `length` random digits from the system's generator.
    public static func newCode(length: Int) -> SecretDigits {
        let digits = DigitBuffer(capacity: length)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<length { digits.append(UInt8.random(in: 0...9, using: &generator)) }
        return digits.take()
    }

    /// If `code` is a live code, removes it and returns its user.
    public func redeem(_ code: SecretDigits) throws -> String? {
        try locked {
            let current = try live()
            var matched: Int?
            for (index, entry) in current.enumerated() where entry.hash.matches(code) { matched = matched ?? index }
            guard let matched else { return nil }
            var remaining = current
            let entry = remaining.remove(at: matched)
            try save(remaining)
            return entry.user
        }
    }

    /// Runs `body` holding the exclusive lock on `PATH.lock` (other processes wait).
    private func locked<R>(_ body: () throws -> R) throws -> R {
        let lockPath = path + ".lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StateFileError(path: lockPath, doing: "open", errno: errno) }
        defer { close(fd) } // closing releases the lock
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw StateFileError(path: lockPath, doing: "lock", errno: errno) }
        }
        return try body()
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
