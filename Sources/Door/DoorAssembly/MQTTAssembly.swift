import DoorConfig
import DoorController
import DoorHomeAssistant
import DoorServices
import KioskPadConfig
import KioskPadCore
import Logging

extension MQTTParts {
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
        let password = try mqtt.password?.text(key: "mqtt.password", kind: .unavailable(retryable: true)).trimmingCharacters(in: .newlines)
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
            note: { metrics.count($0) },
            publishEvent: { bus.publish($0) })
        return MQTTParts(link: link, bridge: bridge)
    }
}
