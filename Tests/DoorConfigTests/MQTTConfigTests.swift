import DoorConfig
import KioskPadConfig
import Testing

/// `mqtt:`: defaults from the terminal id, TLS rules as for the verifier, secrets never in
/// the file, and every bad key named.
@Suite("Terminal config: mqtt")
struct MQTTConfigTests {
    func mqtt(_ section: String) throws -> MQTTConfiguration? {
        try ConfigLoader.parse(yaml: "terminal_id: front-door\nverifier: {kind: demo}\n" + section, source: "t.yaml").daemon.mqtt
    }

    func problems(_ section: String) -> [String] {
        configProblems("terminal_id: front-door\nverifier: {kind: demo}\n" + section)
    }

    @Test func defaultsComeFromTheTerminalID() throws {
        #expect(try mqtt("") == nil)
        let settings = try #require(try mqtt("mqtt:\n  url: mqtts://broker.example\n  username: door\n  password_env: MQTT_PASSWORD\n"))
        #expect(settings.host == "broker.example" && settings.port == 8883 && settings.tls)
        #expect(settings.clientID == "kioskpad-front-door" && settings.baseTopic == "kioskpad/front-door")
        #expect(settings.discoveryPrefix == "homeassistant" && settings.keepalive == 30 && !settings.remoteUnlock)
        #expect(settings.password == .environment("MQTT_PASSWORD"))
        let loopback = try #require(try mqtt("mqtt: {url: \"mqtt://127.0.0.1\", remote_unlock: true}\n"))
        #expect(loopback.port == 1883 && !loopback.tls && loopback.remoteUnlock)
    }

    @Test func everyBadKeyIsNamed() {
        let found = problems(
            """
            mqtt:
              url: mqtt://broker.example:1883
              password: hunter2
              base_topic: kioskpad/#
              discovery_prefix: /homeassistant
              keepalive_s: 2
              remote_unlock: true
              client_cert_file: door.crt
              retain_events: true
            """
        ).joined(separator: "\n")
        for key in [
            "mqtt.url: plain mqtt:// to broker.example", "mqtt.password: secrets are never read from the config file",
            "mqtt.base_topic", "mqtt.discovery_prefix", "mqtt.keepalive_s", "mqtt.remote_unlock: needs mqtts://",
            "mqtt.client_cert_file", "mqtt.retain_events",
        ] {
            #expect(found.contains(key), "\(key) not in:\n\(found)")
        }
        #expect(!found.contains("hunter2"))
    }

    @Test func insecureNeedsSayingSoAndRemoteUnlockStillNeedsTLS() throws {
        let allowed = try #require(try mqtt("mqtt: {url: \"mqtt://broker.example\", allow_insecure: true}\n"))
        #expect(!allowed.tls && allowed.allowInsecure)
        #expect(problems("mqtt: {url: \"mqtt://broker.example\", allow_insecure: true, remote_unlock: true}\n").contains { $0.contains("mqtt.remote_unlock") })
        #expect(problems("mqtt: {url: \"http://broker.example\"}\n").contains { $0.contains("mqtt.url") && $0.contains("mqtts://HOST") })
        #expect(problems("mqtt: {}\n").contains { $0.contains("mqtt.url: is required") })
    }
}
