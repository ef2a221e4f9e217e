extension StrictJSON {
    /// An object's fields read by type: each read is nil when the key is absent, null or of
    /// another type, so the caller names the field and what it must be.
    public struct Fields: Sendable {
        public let object: Object

        /// Nil when `value` is not an object.
        public init?(_ value: Value) {
            guard case .object(let object) = value else { return nil }
            self.object = object
        }

        /// The first key (sorted) that is not in `allowed`, if any.
        public func unknownKey(allowed: Set<String>) -> String? {
            object.keys.filter { !allowed.contains($0) }.sorted().first
        }

        /// Whether `key` is there at all, null included (where null is neither a value nor
        /// "left out", and is refused as the wrong type).
        public func sent(_ key: String) -> Bool {
            object[key] != nil
        }

        /// Whether `key` is there with a value other than null.
        public func has(_ key: String) -> Bool {
            switch object[key] {
            case nil, .null?: return false
            default: return true
            }
        }

        public func string(_ key: String) -> String? {
            object[key]?.text
        }

        /// A string's decoded bytes (a PIN or code: read into ``SecretDigits`` from here).
        public func bytes(_ key: String) -> [UInt8]? {
            if case .string(let bytes)? = object[key] { return bytes }
            return nil
        }

        /// A whole number, as JSON Schema's `integer` has it: `165`, and `165.0` or `1.65e2`
        /// too (a zero fraction), never `1.5`, a string or a boolean.
        public func integer(_ key: String) -> Int64? {
            guard case .number(let text)? = object[key] else { return nil }
            if let whole = Int64(text) { return whole }
            // Exact below 2^53, where every whole number is a Double.
            guard let number = Double(text), number == number.rounded(), abs(number) < 9_007_199_254_740_992 else { return nil }
            return Int64(number)
        }

        public func bool(_ key: String) -> Bool? {
            if case .bool(let value)? = object[key] { return value }
            return nil
        }
    }

}
