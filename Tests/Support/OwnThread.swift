import Foundation

/// Runs blocking work (waiting for a child process, reading a pipe to its end, sleeping) on
/// a thread of its own and awaits its result. A test that blocked inside an async function
/// would hold one of the concurrency pool's threads (two on a two-core machine) and starve
/// the timers of tests running beside it, such as the verifier's deadline.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
