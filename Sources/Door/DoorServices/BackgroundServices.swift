import DoorController
import ServiceLifecycle

/// Publishes a heartbeat every `interval` (a `status` journal record, forwarded like every
/// record), so the site sees a door where nothing happens.
struct HeartbeatService: Service {
    let bus: TerminalEventBus
    let interval: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if !Task.isCancelled { bus.publish(.heartbeat) }
            }
        }
    }
}

/// Runs the event forwarder until the service group shuts down.
struct ForwarderService: Service {
    let forwarder: EventForwarder
    func run() async throws {
        await cancelWhenGracefulShutdown {
            await forwarder.run()
        }
    }
}
