import DoorHomeAssistant
import ServiceLifecycle

/// Keeps the broker link and the bridge running until the service group stops; the link
/// then publishes `offline` and disconnects.
struct MQTTService: Service {
    let parts: MQTTParts

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await parts.bridge.run() }
                group.addTask { await parts.link.run() }
            }
        }
    }
}
