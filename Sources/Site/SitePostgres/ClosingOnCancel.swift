import PostgresNIO
import Synchronization

extension PostgresConnection {
    /// Runs `body` on this connection and closes the connection when the task is cancelled
    /// meanwhile. PostgresNIO does not end a query whose answer has not come when its task is
    /// cancelled, so a deadline around a use of a server that stopped answering (a half-open
    /// connection, a frozen backend) would wait for as long as TCP does: a task group's
    /// deadline still waits for its children. Closing fails the query at once; the server rolls
    /// back what was open. The close is awaited before returning, so the pool has heard of it
    /// before the lease is given back and the next use gets a new connection.
    func closingOnCancel<R: Sendable>(_ body: (PostgresConnection) async throws -> R) async throws -> R {
        let closed = Mutex(false)
        let result: Result<R, any Error>
        do {
            result = .success(
                try await withTaskCancellationHandler {
                    try await body(self)
                } onCancel: {
                    closed.withLock { $0 = true }
                    let closing: EventLoopFuture<Void> = self.close()
                    _ = closing
                })
        } catch {
            result = .failure(error)
        }
        if closed.withLock({ $0 }) { try? await closeFuture.get() }
        return try result.get()
    }
}
