import ServiceLifecycle
import UnixSignals

/// Reloads on every SIGHUP (`systemctl reload kioskpad`) until the group shuts down.
struct ReloadService: Service {
    let reload: @Sendable () async -> Void

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in hangups { await reload() }
        }
    }
}
