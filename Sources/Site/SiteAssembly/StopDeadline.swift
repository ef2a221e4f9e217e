import Dispatch
import Foundation
import KioskPadCore
import Logging
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `verifier serve`'s bound on stopping: from the first SIGTERM or SIGINT it has `limit` to
/// end (the graceful shutdown: requests in flight answered, services ended, the store
/// closed). Past it, it logs what was still running and exits with status 1, so a request
/// stuck on its database or a connection that never answers cannot keep a site instance
/// (and `systemctl stop`) waiting. Ending early is safe: each decision is one transaction,
/// and a door whose request got no answer goes on as with any site that does not answer
/// (its next address, with the same attempt answered from the replay cache, or its replica).
///
/// The signal is watched by a Dispatch signal source and the wait is a Dispatch timer, never
/// a Swift cooperative thread.
final class StopDeadline: Sendable {
    /// `verifier serve`'s: under the Debian unit's `TimeoutStopSec=15`, so the message is
    /// logged before systemd kills the process.
    static let limit: Duration = .seconds(10)

    private let limit: Duration
    private let logger: Logger
    private let running = Mutex<[String]>([])
    /// Kept only to keep the sources alive; set once by ``arm(signals:)``, before the server runs.
    nonisolated(unsafe) private var sources: [any DispatchSourceSignal] = []
    private let started = Mutex(false)
    private let queue = DispatchQueue(label: "kioskpad.verifier.stop-deadline")

    init(limit: Duration, logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    /// Starts watching `signals` (the same ones the service group stops on). Called once,
    /// before anything else runs.
    func arm(signals: [Int32] = [SIGTERM, SIGINT]) {
        sources = signals.map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)  // delivered to the sources, as the service group's are
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.signalled(number) }
            source.resume()
            return source
        }
    }

    /// `body`, counted as running under `name` until it returns (for the message).
    func running<T: Sendable>(_ name: String, _ body: () async throws -> T) async rethrows -> T {
        running.withLock { $0.append(name) }
        defer {
            running.withLock { names in
                if let index = names.firstIndex(of: name) { names.remove(at: index) }
            }
        }
        return try await body()
    }

    /// What is still running, by name.
    var stillRunning: [String] { running.withLock { $0 } }

    private func signalled(_ number: Int32) {
        // The first signal starts the clock; later ones do not move it.
        guard
            started.withLock({ started in
                defer { started = true }
                return !started
            })
        else { return }
        queue.asyncAfter(deadline: .now() + limit.timeInterval) { [self] in
            let names = stillRunning
            logger.error(
                "verifier serve did not stop within \(limit.wholeSeconds) s of \(number == SIGINT ? "SIGINT" : "SIGTERM"); exiting now",
                metadata: ["still_running": "\(names.isEmpty ? "nothing named (closing)" : names.joined(separator: ", "))"])
            fflush(nil)  // every stream, stderr included
            _exit(1)
        }
    }
}

/// A service of `verifier serve` counted by the ``StopDeadline`` while it runs.
struct DeadlineCountedService: Service {
    let name: String
    let service: any Service
    let deadline: StopDeadline

    func run() async throws {
        try await deadline.running(name) { try await service.run() }
    }
}
