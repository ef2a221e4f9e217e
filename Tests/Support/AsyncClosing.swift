/// A test fixture whose closing waits: for processes to end, for a database server to stop.
/// `defer` cannot await, and a synchronous close there would wait on a thread of Swift's
/// concurrency pool; ``closing(_:)`` is that `defer`.
public protocol AsyncClosing: AnyObject {
    /// Stops what the fixture started and removes its files, waiting on threads of its own.
    func close() async
}

extension AsyncClosing {
    /// Runs `body`, then ``close()``, whether `body` threw or not.
    public func closing<T>(_ body: () async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body()
        } catch {
            await close()
            throw error
        }
        await close()
        return result
    }
}
