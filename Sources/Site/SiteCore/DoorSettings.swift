import Foundation
import KioskPadAccess
import KioskPadCore

/// Policy a site gives its adopted doors (`kioskpad verifier settings`): entry, lockout, the
/// display's texts, the door's times, deciding offline from a replica and MQTT on or off, by
/// the door config's own key names (`entry.timeout_s`).
/// Hardware (pins, buses, devices, drivers) stays in each door's file, which wins where both
/// speak. The site checks only that a key is one of these and its value of the right kind;
/// the door checks the whole with its own config checker and refuses what does not fit.
public struct DoorSettings: Sendable, Equatable {
    /// What a setting's value must be.
    public enum Kind: String, Sendable {
        case integer, seconds, flag, text, choice
    }

    /// One setting's value, as JSON carries it.
    public enum Value: Sendable, Equatable {
        case integer(Int64)
        case number(Double)
        case flag(Bool)
        case text(String)

        /// As `settings show` prints it.
        public var shown: String {
            if case .text(let text) = self { return "'\(text)'" }
            return json
        }

        var json: String {
            switch self {
            case .integer(let value): return String(value)
            case .number(let value): return String(value)
            case .flag(let value): return value ? "true" : "false"
            case .text(let value): return VerificationRequestBody.jsonString(value)
            }
        }
    }

    /// Every key a site may set, and its kind.
    public static let keys: [String: Kind] = {
        var keys: [String: Kind] = [
            "entry.min_length": .integer, "entry.max_length": .integer, "entry.timeout_s": .seconds, "entry.result_s": .seconds,
            "entry.end_key_required": .flag, "entry.challenge": .choice, "entry.challenge_length": .integer, "entry.enrolment": .flag,
            "lockout.max_failures": .integer, "lockout.window_s": .seconds, "lockout.lockout_s": .seconds, "lockout.max_lockout_s": .seconds,
            "display.backlight_timeout_s": .seconds,
            "door.unlock_s": .seconds, "door.max_unlock_s": .seconds, "door.held_open_s": .seconds, "door.open_grace_s": .seconds,
            "door.relock_on_open": .flag,
            "verifier.offline.mode": .choice, "verifier.offline.sync_s": .seconds, "verifier.offline.max_age_h": .integer,
            "mqtt.enabled": .flag,
        ]
        for (text, _) in DisplayTexts.configKeys { keys["display.texts." + text] = .text }
        return keys
    }()

    /// The site-wide settings' scope; a door's own are stored under its terminal_id.
    public static let siteScope = "*"

    public private(set) var values: [String: Value]

    public init(_ values: [String: Value] = [:]) {
        self.values = values
    }

    /// `KEY=VALUE` as typed on the command line or in the console, checked against ``keys``;
    /// the error names the key and what it must be.
    public static func parse(_ assignment: String) throws -> (String, Value) {
        guard let equals = assignment.firstIndex(of: "=") else {
            throw UserEditError(description: "'\(assignment)' must be KEY=VALUE, e.g. entry.timeout_s=15")
        }
        let key = String(assignment[..<equals]).trimmingCharacters(in: .whitespaces)
        let text = String(assignment[assignment.index(after: equals)...])
        let parsed = try value(text, for: key)
        try checkRange(key, parsed)
        return (key, parsed)
    }

    /// `text` read as `key`'s kind.
    public static func value(_ text: String, for key: String) throws -> Value {
        guard let kind = keys[key] else { throw unknownKey(key) }
        switch kind {
        case .integer:
            guard let number = Int64(text.trimmingCharacters(in: .whitespaces)) else {
                throw UserEditError(description: "\(key): '\(text)' must be a whole number")
            }
            return .integer(number)
        case .seconds:
            guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite, number >= 0, number <= 1e12 else {
                throw UserEditError(description: "\(key): '\(text)' must be a number of seconds (0 to 10^12; the door holds it to its own range)")
            }
            return number == number.rounded() && abs(number) < 1e15 ? .integer(Int64(number)) : .number(number)
        case .flag:
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true", "on", "yes": return .flag(true)
            case "false", "off", "no": return .flag(false)
            default: throw UserEditError(description: "\(key): '\(text)' must be true or false")
            }
        case .choice, .text:
            guard text.utf8.count <= 200, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw UserEditError(description: "\(key): must be one line of at most 200 bytes, without control characters")
            }
            return .text(text)
        }
    }

    static func unknownKey(_ key: String) -> UserEditError {
        UserEditError(description: "'\(key)' is not a setting a site gives its doors; they are: \(keys.keys.sorted().joined(separator: ", "))")
    }

    /// Sets `key` (one of ``keys``) to `value`, or removes it when nil.
    public mutating func set(_ key: String, _ value: Value?) throws {
        guard Self.keys[key] != nil else { throw Self.unknownKey(key) }
        values[key] = value
    }

    /// These settings with `overrides` on top (a door's own over the site's).
    public func overlaid(by overrides: DoorSettings) -> DoorSettings {
        DoorSettings(values.merging(overrides.values) { $1 })
    }

    /// One JSON object, keys sorted: `{"entry.timeout_s":15,...}`.
    public var json: String {
        "{" + values.keys.sorted().map { "\(VerificationRequestBody.jsonString($0)):\(values[$0]!.json)" }.joined(separator: ",") + "}"
    }

    /// From ``json`` (as stored); a key no longer known, or a value of another kind, is an error naming it.
    public init(json: String) throws {
        guard case .object(let object) = try StrictJSON.parse(Array(json.utf8)).get() else {
            throw UserEditError(description: "settings: must be one JSON object")
        }
        var values: [String: Value] = [:]
        for key in object.keys {
            guard Self.keys[key] != nil, let value = object[key] else { throw Self.unknownKey(key) }
            switch value {
            case .bool(let flag): values[key] = .flag(flag)
            case .string: values[key] = .text(value.text ?? "")
            case .number(let text): values[key] = Int64(text).map(Value.integer) ?? Double(text).map(Value.number) ?? .text(text)
            default: throw UserEditError(description: "settings: \(key) must be a number, true, false or text")
            }
        }
        self.values = values
    }
}

/// The settings a door is given and what it said of them, as the Doors page shows them.
public struct DoorSettingsState: Sendable, Equatable {
    public let terminalID: String
    /// The version it runs (0: none from the site yet).
    public let running: Int64
    /// The version it refused and its reason, if it refused the newest it was given.
    public let refused: (version: Int64, reason: String)?
    /// The replica keys it said it trusts (`ed25519:...`; empty from a door that did not say).
    public let replicaKeys: [String]

    public init(terminalID: String, running: Int64, refused: (version: Int64, reason: String)?, replicaKeys: [String] = []) {
        self.terminalID = terminalID
        self.running = running
        self.refused = refused
        self.replicaKeys = replicaKeys
    }

    public static func == (lhs: DoorSettingsState, rhs: DoorSettingsState) -> Bool {
        lhs.terminalID == rhs.terminalID && lhs.running == rhs.running && lhs.refused?.version == rhs.refused?.version
            && lhs.refused?.reason == rhs.refused?.reason && lhs.replicaKeys == rhs.replicaKeys
    }
}

/// Where a site keeps its doors' settings (SQLite and PostgreSQL alike).
public protocol DoorSettingsStore: Sendable {
    /// The settings stored for `scope` (``DoorSettings/siteScope`` or a terminal_id).
    func settings(scope: String) async throws -> DoorSettings
    /// Replaces `scope`'s settings and raises the settings version, in one transaction; returns the new version.
    @discardableResult
    func setSettings(scope: String, _ settings: DoorSettings) async throws -> Int64
    /// The settings version now and every scope's settings (the site's under
    /// ``DoorSettings/siteScope``, each door's own under its terminal_id), in one read.
    func allSettings() async throws -> (version: Int64, byScope: [String: DoorSettings])
    /// The settings version now, and `door`'s settings: the site's with its own on top.
    func effectiveSettings(door: String) async throws -> (version: Int64, settings: DoorSettings)
    /// What `door` said at its check-in: the version it runs, and the one it refused, with why.
    /// and the replica keys it trusts (space-separated; empty when it did not say).
    func noteSettings(door: String, running: Int64, refused: (version: Int64, reason: String)?, replicaKeys: String, now: Date) async throws
    /// What each door said of its settings, by terminal_id.
    func settingsStates() async throws -> [String: DoorSettingsState]
    /// What a check-in from `door` reads, in one statement (``DoorCheckInView``).
    func checkInView(door: String) async throws -> DoorCheckInView
    /// The settings version and the doors whose secret's rotation waits, in one statement
    /// (what the push channel tells an adopted door to check in for).
    func checkInSignals() async throws -> ReplicaVersionWatch.CheckInSignals
}
