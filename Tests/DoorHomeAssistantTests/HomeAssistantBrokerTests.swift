import DoorController
import DoorHomeAssistant
import Foundation
import KeypadTestSupport
import KioskPadCore
import TestPeers
import Testing

/// The Home Assistant bridge and its libmosquitto link against a real `mosquitto` on
/// loopback (password and TLS listeners, a CA made for the test).
@Suite("Home Assistant over a real MQTT broker", .serialized, .heavy)
struct HomeAssistantBrokerTests {
    /// The keys Home Assistant requires (or this project relies on) per component.
    static let required: [String: [String]] = [
        "event": ["state_topic", "event_types"],
        "binary_sensor": ["state_topic", "device_class"],
        "lock": ["state_topic", "command_topic", "payload_lock", "payload_unlock", "state_locked", "state_unlocked"],
        "sensor": ["state_topic"],
    ]

    @Test("discovery configs arrive retained over TLS, carry what Home Assistant needs, and keep their unique_ids across restarts")
    func discoveryOverTLS() async throws {
        let broker = try await MosquittoTestBroker.started()
        var uniqueIDs: [Set<String>] = []
        for _ in 0..<2 {
            let harness = BridgeHarness(broker: broker, tls: true)
            await harness.start()
            #expect(await harness.connected(), "never connected over TLS: \(harness.logs.all)")
            try await Task.sleep(for: .milliseconds(300))
            let configs = try await broker.retained("homeassistant/#", expecting: 7)
            #expect(configs.count == 7)
            var ids = Set<String>()
            for config in configs {
                #expect(config.retained)
                let component = config.topic.split(separator: "/")[1]
                let object = try #require(try JSONSerialization.jsonObject(with: Data(config.payload.utf8)) as? [String: Any], "\(config.topic)")
                for key in (Self.required[String(component)] ?? ["missing component"]) + ["unique_id", "availability_topic", "device", "name"] {
                    #expect(object[key] != nil, "\(config.topic) lacks \(key)")
                }
                let device = try #require(object["device"] as? [String: Any])
                #expect((device["identifiers"] as? [String]) == ["kioskpad_door-1"])
                ids.insert(try #require(object["unique_id"] as? String))
            }
            uniqueIDs.append(ids)
            let status = try await broker.retained(harness.topics.status, expecting: 1)
            #expect(status.map(\.payload) == ["online"])
            await harness.stop()
        }
        #expect(uniqueIDs[0].count == 7)
        #expect(uniqueIDs[0] == uniqueIDs[1])
        // A clean stop leaves `offline`, retained.
        #expect(try await broker.retained("kioskpad/door-1/status", expecting: 1).map(\.payload) == ["offline"])
    }

    @Test("door opened, held, forced and closed change the door sensor; held and forced are events; tamper and keypad are states")
    func doorStates() async throws {
        let broker = try await MosquittoTestBroker.started()
        let harness = BridgeHarness(broker: broker)
        let watcher = try await broker.watch("kioskpad/door-1/#")
        await harness.start()
        #expect(await harness.connected(), "\(harness.logs.all.suffix(20))")
        // On connecting, the bridge announces itself: availability, discovery, then every known
        // state, the keypad's last. Wait for that, or (seen under emulation) a door state it
        // announces after the first event doubles one of the events' own.
        #expect(await watcher.wait { $0.contains { $0.topic == harness.topics.keypadProblem } })
        for event: TerminalEvent in [
            .doorInput(.opened), .doorInput(.heldOpen(seconds: 30)), .doorInput(.closed), .doorInput(.forcedOpen),
            .doorInput(.tamper(active: true)), .keypadHealth(ok: false), .door(unlocked: true, seconds: 5),
        ] {
            await harness.bridge.handle(event)
        }
        #expect(await watcher.wait { $0.contains { $0.topic.hasSuffix("/lock") && $0.payload == "UNLOCKED" } })
        let door = watcher.messages(on: harness.topics.door).map(\.payload)
        #expect(door == ["ON", "ON", "OFF", "ON"])
        let events = watcher.messages(on: harness.topics.event)
        #expect(events.map(\.payload) == [#"{"event_type":"held_open"}"#, #"{"event_type":"forced_open"}"#])
        #expect(events.allSatisfy { !$0.retained })
        #expect(watcher.messages(on: harness.topics.tamper).last?.payload == "ON")
        #expect(watcher.messages(on: harness.topics.keypadProblem).last?.payload == "ON")
        await harness.stop()
    }

    @Test("each OSDP reader is a problem sensor: on while offline, refused or tampered, off when it is back")
    func readerProblems() async throws {
        let broker = try await MosquittoTestBroker.started()
        let harness = BridgeHarness(broker: broker, features: .init(doorContact: false, tamper: false, remoteUnlock: false, readers: [1, 2]))
        let watcher = try await broker.watch("homeassistant/binary_sensor/#")
        let states = try await broker.watch("kioskpad/door-1/reader/#")
        await harness.start()
        #expect(await harness.connected(), "\(harness.logs.all.suffix(20))")
        #expect(await watcher.wait { $0.filter { $0.topic.contains("/reader_") }.count == 2 })
        let config = try #require(watcher.messages(on: "homeassistant/binary_sensor/kioskpad_door-1/reader_2/config").first)
        #expect(config.payload.contains(#""device_class":"problem""#) && config.payload.contains(#""state_topic":"kioskpad/door-1/reader/2""#))
        for event: TerminalEvent in [
            .reader(address: 1, report: .online(secure: true)), .reader(address: 2, report: .refused(reason: "key")),
            .reader(address: 1, report: .tamper(active: true)), .reader(address: 1, report: .tamper(active: false)),
        ] {
            await harness.bridge.handle(event)
        }
        #expect(await states.wait { $0.filter { $0.topic.hasSuffix("/reader/1") }.count == 3 })
        #expect(states.messages(on: harness.topics.readerProblem(1)).map(\.payload) == ["OFF", "ON", "OFF"])
        #expect(states.messages(on: harness.topics.readerProblem(2)).map(\.payload) == ["ON"])
        // Retained: a subscriber that comes later gets each reader's state at once.
        let later = try await broker.watch("kioskpad/door-1/reader/#")
        #expect(await later.wait { $0.count == 2 })
        #expect(later.messages(on: harness.topics.readerProblem(1)).map(\.payload) == ["OFF"])
        #expect(later.messages(on: harness.topics.readerProblem(2)).first?.retained == true)
        await harness.stop()
    }

    @Test("broker stopped and started again: the client reconnects by itself, says online again and sends what waited")
    func reconnects() async throws {
        let broker = try await MosquittoTestBroker.started()
        let harness = BridgeHarness(broker: broker)
        await harness.start()
        #expect(await harness.connected(), "\(harness.logs.all.suffix(20))")
        await harness.bridge.handle(.doorInput(.opened))
        await broker.stop()
        #expect(await harness.wait { if case .unavailable = harness.link.connection { return true } else { return false } })
        await harness.bridge.handle(.doorInput(.closed))
        await harness.bridge.handle(grant(user: "alice"))
        #expect(await harness.bridge.queuedEvents == 1)
        try await broker.start()
        let watcher = try await broker.watch("kioskpad/door-1/#")
        #expect(await harness.connected(within: 40), "no reconnect: \(harness.logs.all)")
        #expect(await watcher.wait { $0.contains { $0.topic.hasSuffix("/event") } })
        #expect(watcher.messages(on: harness.topics.status).last?.payload == "online")
        #expect(watcher.messages(on: harness.topics.door).last?.payload == "OFF")
        #expect(watcher.messages(on: harness.topics.event).map(\.payload) == [#"{"event_type":"granted","user":"alice"}"#])
        #expect(harness.logs.all.contains { $0.contains("mqtt broker unavailable") })
        #expect(harness.notes.contains(.connection(.connected)))
        await harness.stop()
    }

    @Test("a broker that refuses the password: one clear log line, state refused, and the bridge goes on")
    func refusedPassword() async throws {
        let broker = try await MosquittoTestBroker.started()
        let harness = BridgeHarness(broker: broker, password: "wrong")
        await harness.start()
        #expect(await harness.wait { if case .refused = harness.link.connection { return true } else { return false } })
        try await Task.sleep(for: .seconds(3))  // libmosquitto retries meanwhile
        let refusals = harness.logs.all.filter { $0.contains("refused the connection") }
        #expect(refusals.count == 1, "\(harness.logs.all)")
        #expect(refusals.first?.contains("not authorised") == true)
        await harness.bridge.handle(grant(user: "bob"))  // the terminal goes on
        #expect(await harness.bridge.queuedEvents == 1)
        await harness.stop()
    }

    @Test("remote unlock: a code reaches the controller only when on, not retained and well formed; every refusal is put on the bus")
    func remoteUnlockRules() async throws {
        let broker = try await MosquittoTestBroker.started()
        // Retained before the terminal starts: must open nothing.
        try await broker.publish("kioskpad/door-1/lock/set", #"{"action":"OPEN","code":"1234"}"#, retain: true)
        let harness = BridgeHarness(broker: broker)
        await harness.start()
        #expect(await harness.connected(), "\(harness.logs.all.suffix(20))")
        #expect(await harness.wait { harness.busEvents.count == 1 })
        #expect(harness.remoteCodes.isEmpty)
        try await broker.publish("kioskpad/door-1/lock/set", "", retain: true)  // clear it
        try await broker.publish("kioskpad/door-1/lock/set", "OPEN")
        try await broker.publish("kioskpad/door-1/lock/set", #"{"action":"UNLOCK","code":""}"#)
        try await broker.publish("kioskpad/door-1/lock/set", #"{"action":"OPEN","code":"12a4"}"#)
        try await broker.publish("kioskpad/door-1/lock/set", #"{"action":"OPEN","code":"1234","extra":"x"}"#)
        try await broker.publish("kioskpad/door-1/lock/set", String(repeating: "9", count: 300))
        try await broker.publish("kioskpad/door-1/other", "OPEN")
        try await broker.publish("kioskpad/door-1/lock/set", #"{ "code": "975318642097", "action": "OPEN" }"#)
        #expect(await harness.wait { harness.remoteCodes.count == 1 })
        #expect(harness.remoteCodes == [12])
        let refusals = harness.busEvents.compactMap { event -> String? in
            if case .remoteUnlockRefused(let reason) = event { return reason }
            return nil
        }
        #expect(refusals == ["retained", "no_code", "no_code"])
        #expect(await harness.wait { harness.notes.filter { if case .inboundIgnored = $0 { return true } else { return false } }.count >= 4 })
        let ignored = harness.notes.compactMap { note -> String? in
            if case .inboundIgnored(let reason) = note { return reason }
            return nil
        }
        #expect(Set(ignored) == ["retained", "bad_code", "malformed", "oversized"])
        for line in harness.logs.all { #expect(!line.contains("1234") && !line.contains("975318642097"), "\(line)") }
        await harness.stop()
    }

    @Test("remote unlock off: a command with a code is refused and never reaches the controller")
    func remoteUnlockOff() async throws {
        let broker = try await MosquittoTestBroker.started()
        let harness = BridgeHarness(broker: broker, features: .init(doorContact: false, tamper: false, remoteUnlock: false))
        await harness.start()
        #expect(await harness.connected(), "\(harness.logs.all.suffix(20))")
        try await broker.publish("kioskpad/door-1/lock/set", #"{"action":"OPEN","code":"4821"}"#)
        #expect(await harness.wait { !harness.busEvents.isEmpty })
        #expect(harness.busEvents == [.remoteUnlockRefused(reason: "off")])
        #expect(harness.remoteCodes.isEmpty)
        // Without remote unlock the lock asks Home Assistant for no code; without a contact or tamper switch those entities are not
        // announced; the door's mode always is.
        let configs = try await broker.retained("homeassistant/#", expecting: 5)
        #expect(configs.count == 5)
        #expect(
            configs.contains {
                $0.topic == "homeassistant/sensor/kioskpad_door-1/mode/config" && $0.payload.contains(#""options":["normal","lockdown","release"]"#)
            })
        let lock = try #require(configs.first { $0.topic.contains("/lock/") })
        #expect(!lock.payload.contains("code_format"))
        await harness.stop()
    }

    @Test("Home Assistant coming online gets the discovery again")
    func reannounce() async throws {
        let broker = try await MosquittoTestBroker.started()
        let harness = BridgeHarness(broker: broker)
        await harness.start()
        #expect(await harness.connected(), "\(harness.logs.all.suffix(20))")
        let watcher = try await broker.watch("homeassistant/binary_sensor/#")
        try await Task.sleep(for: .milliseconds(200))
        let before = watcher.messages.filter { !$0.retained }.count
        try await broker.publish("homeassistant/status", "online")
        #expect(await watcher.wait { $0.filter { !$0.retained }.count >= before + 3 })
        await harness.stop()
    }

    @Test("10,000 events while the broker is away: the queue holds the newest 100, the rest are dropped and counted")
    func boundedQueue() async throws {
        let broker = try await MosquittoTestBroker.started()
        await broker.stop()
        let harness = BridgeHarness(broker: broker)
        await harness.start()
        for index in 0..<10_000 { await harness.bridge.handle(grant(user: "u\(index)")) }
        #expect(await harness.bridge.queuedEvents == HomeAssistantBridge.eventQueueLimit)
        let dropped = harness.notes.reduce(0) { total, note in
            if case .eventsDropped(let count) = note { return total + count }
            return total
        }
        #expect(dropped == 10_000 - HomeAssistantBridge.eventQueueLimit)
        try await broker.start()
        let watcher = try await broker.watch("kioskpad/door-1/event")
        #expect(await harness.connected(within: 40))
        #expect(await watcher.wait { $0.count == 100 })
        #expect(watcher.messages.first?.payload == #"{"event_type":"granted","user":"u9900"}"#)
        #expect(watcher.messages.last?.payload == #"{"event_type":"granted","user":"u9999"}"#)
        await harness.stop()
    }

    private func grant(user: String) -> TerminalEvent {
        .attemptDecided(attemptID: UUID().uuidString, kind: .pin, outcome: .granted(user: user), latency: .milliseconds(5), lockedOut: false)
    }
}
