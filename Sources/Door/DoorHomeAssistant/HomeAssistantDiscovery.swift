import Foundation
import KioskPadAccess

/// Home Assistant's MQTT discovery for one terminal: one retained config per entity under
/// `<prefix>/<component>/<node>/<object>/config` (works with every Home Assistant release
/// that has these entity types, and lets one entity be removed alone), all in one device.
/// `unique_id`s come from the terminal id only, so they are the same after every restart.
public struct HomeAssistantDiscovery: Sendable {
    /// What the terminal has, so that no entity is announced that could never change.
    public struct Features: Sendable, Equatable {
        public var doorContact: Bool
        public var tamper: Bool
        public var remoteUnlock: Bool
        /// The addresses of the OSDP readers (`keypad.driver: osdp`): a problem sensor each.
        public var readers: [Int]

        public init(doorContact: Bool, tamper: Bool, remoteUnlock: Bool, readers: [Int] = []) {
            self.doorContact = doorContact
            self.tamper = tamper
            self.remoteUnlock = remoteUnlock
            self.readers = readers
        }
    }

    /// The event entity's `event_type`s.
    public static let eventTypes = ["granted", "denied", "duress", "locked_out", "remote_unlock", "forced_open", "held_open"]
    /// What Home Assistant's lock sends: a JSON object with the action and the code typed
    /// in Home Assistant's dialog.
    public static let commandTemplate = #"{"action":"{{ value }}","code":"{{ code }}"}"#
    /// The codes Home Assistant asks for (it shows a keypad and checks the form).
    public static let codeFormat = "^[0-9]{4,12}$"

    public let topics: HomeAssistantTopics
    public let terminalID: String
    public let version: String
    public let features: Features

    public init(topics: HomeAssistantTopics, terminalID: String, version: String, features: Features) {
        self.topics = topics
        self.terminalID = terminalID
        self.version = version
        self.features = features
    }

    /// `kioskpad_<terminal id>` with every character Home Assistant does not allow in a
    /// node id (`[a-zA-Z0-9_-]`) made `_`.
    public var nodeID: String {
        "kioskpad_" + String(terminalID.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "_" })
    }

    /// Every entity's config topic and JSON payload.
    public var configs: [(topic: String, payload: [UInt8])] {
        var entities: [(component: String, object: String, fields: [String: Any])] = [
            (
                "event", "access",
                [
                    "name": "Access", "state_topic": topics.event, "event_types": HomeAssistantDiscovery.eventTypes,
                    "icon": "mdi:door-closed-lock",
                ]
            ),
            ("lock", "lock", lockFields),
            ("sensor", "last_user", ["name": "Last user", "state_topic": topics.lastUser, "icon": "mdi:account-key"]),
            (
                "sensor", "mode",
                [
                    "name": "Mode", "state_topic": topics.mode, "device_class": "enum", "options": DoorMode.allCases.map(\.rawValue),
                    "icon": "mdi:shield-lock",
                ]
            ),
            (
                "binary_sensor", "keypad",
                [
                    "name": "Keypad", "state_topic": topics.keypadProblem, "device_class": "problem", "entity_category": "diagnostic",
                ]
            ),
        ]
        if features.doorContact {
            entities.append(("binary_sensor", "door", ["name": "Door", "state_topic": topics.door, "device_class": "door"]))
        }
        if features.tamper {
            entities.append(
                (
                    "binary_sensor", "tamper",
                    [
                        "name": "Tamper", "state_topic": topics.tamper, "device_class": "tamper", "entity_category": "diagnostic",
                    ]
                ))
        }
        for reader in features.readers {
            entities.append(
                (
                    "binary_sensor", "reader_\(reader)",
                    [
                        "name": "Reader \(reader)", "state_topic": topics.readerProblem(reader), "device_class": "problem",
                        "entity_category": "diagnostic",
                    ]
                ))
        }
        return entities.map { entity in
            var fields = entity.fields
            fields["unique_id"] = "\(nodeID)_\(entity.object)"
            fields["availability_topic"] = topics.status
            fields["device"] = device
            fields["origin"] = ["name": "KioskPad", "sw_version": version]
            return (topics.discovery(component: entity.component, node: nodeID, object: entity.object), HomeAssistantDiscovery.json(fields))
        }
    }

    private var lockFields: [String: Any] {
        var fields: [String: Any] = [
            "name": "Door lock", "state_topic": topics.lock, "command_topic": topics.lockCommand,
            "state_locked": "LOCKED", "state_unlocked": "UNLOCKED", "payload_lock": "LOCK", "payload_unlock": "UNLOCK",
            "payload_open": "OPEN", "optimistic": false,
        ]
        if features.remoteUnlock {
            fields["code_format"] = HomeAssistantDiscovery.codeFormat
            fields["command_template"] = HomeAssistantDiscovery.commandTemplate
        }
        return fields
    }

    private var device: [String: Any] {
        ["identifiers": [nodeID], "name": "KioskPad \(terminalID)", "manufacturer": "KioskPad", "model": "KioskPad door terminal", "sw_version": version]
    }

    /// Compact JSON with sorted keys (the same bytes for the same config).
    static func json(_ object: Any) -> [UInt8] {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return Array(data)
    }
}

/// The topics one terminal uses, from `base_topic` and `discovery_prefix`.
public struct HomeAssistantTopics: Sendable, Equatable {
    public let base: String
    public let prefix: String

    public init(base: String, prefix: String) {
        self.base = base
        self.prefix = prefix
    }

    /// Availability: `online` / `offline`, retained; also the last will.
    public var status: String { "\(base)/status" }
    /// Access and door events (never retained).
    public var event: String { "\(base)/event" }
    public var door: String { "\(base)/door" }
    public var tamper: String { "\(base)/tamper" }
    public var keypadProblem: String { "\(base)/keypad" }
    /// An OSDP reader's problem: `ON` while it is offline, refused, tampered or without power.
    public func readerProblem(_ address: Int) -> String { "\(base)/reader/\(address)" }
    public var lock: String { "\(base)/lock" }
    public var lockCommand: String { "\(base)/lock/set" }
    public var lastUser: String { "\(base)/last_user" }
    /// The door's mode: `normal`, `lockdown` or `release`, retained.
    public var mode: String { "\(base)/mode" }
    /// Home Assistant's own `online` / `offline`.
    public var homeAssistantStatus: String { "\(prefix)/status" }

    func discovery(component: String, node: String, object: String) -> String {
        "\(prefix)/\(component)/\(node)/\(object)/config"
    }
}
