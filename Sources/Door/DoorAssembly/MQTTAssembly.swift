import DoorController
import DoorHomeAssistant
import DoorServices
import KioskPadConfig
import KioskPadCore
import Logging
import ServiceLifecycle

/// A terminal's Home Assistant link (`mqtt:`): the broker connection and the bridge that
/// reads the terminal's events. Built only when the config has an `mqtt:` section.
public struct MQTTParts: Sendable {
    public let link: MQTTLink
    public let bridge: HomeAssistantBridge

    /// The link and bridge for `configuration` (nil without `mqtt:`); throws a
    /// ``KeyedError`` for a password that cannot be read, a build without MQTT or a
    /// missing libmosquitto.
    static func make(
        _ configuration: KioskPadConfiguration, doorInputs: Bool, metrics: TerminalMetrics, bus: TerminalEventBus, logger: Logger
    ) throws -> MQTTParts? {
        guard let mqtt = configuration.daemon.mqtt else { return nil }
        if let reason = MQTTLink.unavailableReason() {
            throw KeyedError(key: "mqtt", message: reason)
        }
        var password: String?
        if let source = mqtt.password {
            do {
                password = try source.read().trimmingCharacters(in: .newlines)
            } catch {
                throw KeyedError(key: TerminalAssembly.key("mqtt.password", source), message: "\(error)", kind: .unavailable(retryable: true))
            }
        }
        let topics = HomeAssistantTopics(base: mqtt.baseTopic, prefix: mqtt.discoveryPrefix)
        let settings = MQTTLinkSettings(
            host: mqtt.host, port: mqtt.port, tls: mqtt.tls, caFile: mqtt.caFile, clientCertificate: mqtt.clientCertificate,
            clientKey: mqtt.clientKey, username: mqtt.username, password: password, clientID: mqtt.clientID,
            keepalive: mqtt.keepalive, will: (topics.status, "offline"))
        let inbox = HomeAssistantBridge.makeInbox()
        let link = MQTTLink(settings: settings, logger: logger) { inbox.1.yield(.link($0)) }
        let features = HomeAssistantDiscovery.Features(
            doorContact: doorInputs && configuration.daemon.door?.contact != nil,
            tamper: doorInputs && configuration.daemon.tamper != nil, remoteUnlock: mqtt.remoteUnlock,
            readers: configuration.keypad.driver == .osdp ? (configuration.keypad.osdp?.readers.map(\.address) ?? []) : [])
        let discovery = HomeAssistantDiscovery(
            topics: topics, terminalID: configuration.terminalID, version: KioskPadVersion.version, features: features)
        let bridge = HomeAssistantBridge(
            transport: link, inbox: inbox, discovery: discovery, logger: logger,
            note: { note in
                switch note {
                case .connection(let state): metrics.mqttConnection(state.label)
                case .eventsDropped(let count): metrics.mqttEventsDropped(count)
                case .inboundIgnored(let reason): metrics.mqttMessageIgnored(reason)
                }
            },
            publishEvent: { bus.publish($0) })
        return MQTTParts(link: link, bridge: bridge)
    }

    /// `/healthz`'s line: `mqtt connected (broker:8883)`.
    var healthLine: String {
        "mqtt \(link.connection) (\(link.settings.endpoint))"
    }
}

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
