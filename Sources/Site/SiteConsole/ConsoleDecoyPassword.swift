import Foundation
import KioskPadAccess
import SiteCore
import Synchronization

/// The hash a login with an unknown administrator name is checked against, so it costs what
/// a real login costs: a random salt and hash (nothing matches it) at the iteration count of
/// the site's administrators (the first one's, read again at most once a minute), or
/// ``PINHash/passwordIterations`` while there is none.
final class ConsoleDecoyPassword: Sendable {
    private let cached = Mutex<(hash: PINHash, read: Date)?>(nil)

    func hash(_ console: any ConsoleStore, now: Date) async throws -> PINHash {
        if let cached = cached.withLock({ $0 }), now >= cached.read, now.timeIntervalSince(cached.read) < 60 { return cached.hash }
        var iterations = PINHash.passwordIterations
        if let first = try await console.adminNames().first, let account = try await console.admin(name: first) {
            iterations = account.hash.iterations
        }
        var generator = SystemRandomNumberGenerator()
        let hash = PINHash(iterations: iterations, salt: (0..<16).map { _ in generator.next() }, hash: (0..<32).map { _ in generator.next() })
        cached.withLock { $0 = (hash, now) }
        return hash
    }
}
