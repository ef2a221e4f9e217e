import KioskPadCore

/// A command for the `lock` entity, read from the raw payload without making a string of
/// the code: `OPEN`, `UNLOCK` or `LOCK` alone, or Home Assistant's rendered
/// ``HomeAssistantDiscovery/commandTemplate``, a flat JSON object `{"action": "OPEN",
/// "code": "1234"}` of string values (no escapes).
struct RemoteUnlockCommand {
    enum Action: String {
        case open = "OPEN"
        case unlock = "UNLOCK"
        case lock = "LOCK"
    }

    let action: Action
    /// nil when no code, or an empty one, was sent.
    let code: SecretDigits?

    /// Why a payload was not a command (the metrics label).
    enum Problem: String, Error {
        case malformed
        case badCode = "bad_code"
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<RemoteUnlockCommand, Problem> {
        if bytes.count <= 6, let action = Action(rawValue: String(decoding: bytes, as: UTF8.self)) {
            return .success(RemoteUnlockCommand(action: action, code: nil))
        }
        guard let fields = flatObject(bytes), let actionRange = fields["action"],
            let action = Action(rawValue: String(decoding: bytes[actionRange], as: UTF8.self)),
            Set(fields.keys).isSubset(of: ["action", "code"])
        else { return .failure(.malformed) }
        guard let codeRange = fields["code"], !codeRange.isEmpty else {
            return .success(RemoteUnlockCommand(action: action, code: nil))
        }
        guard codeRange.count <= 12, let code = SecretDigits(asciiBytes: bytes[codeRange]) else { return .failure(.badCode) }
        return .success(RemoteUnlockCommand(action: action, code: code))
    }

    /// The byte ranges of a flat object's string values, by key; nil for anything else.
    private static func flatObject(_ bytes: UnsafeBufferPointer<UInt8>) -> [String: Range<Int>]? {
        var index = 0
        func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }
        func expect(_ byte: UInt8) -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        func string() -> Range<Int>? {
            guard expect(0x22) else { return nil }
            let start = index
            while index < bytes.count, bytes[index] != 0x22 {
                if bytes[index] == 0x5C || bytes[index] < 0x20 { return nil }  // no escapes, no control characters
                index += 1
            }
            guard index < bytes.count else { return nil }
            index += 1
            return start..<(index - 1)
        }
        guard expect(0x7B) else { return nil }
        var fields: [String: Range<Int>] = [:]
        if expect(0x7D) { return index == bytes.count ? fields : nil }
        while true {
            guard let key = string(), expect(0x3A), let value = string() else { return nil }
            let name = String(decoding: bytes[key], as: UTF8.self)
            guard fields[name] == nil else { return nil }
            fields[name] = value
            if expect(0x2C) { continue }
            guard expect(0x7D) else { return nil }
            skipSpace()
            return index == bytes.count ? fields : nil
        }
    }
}
