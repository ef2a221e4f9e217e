/// JSON read in one strict pass: the only parser of the door protocol's bodies (a door's
/// request to the site, the site's answer to a door). It refuses what parsers disagree on
/// or what the schema has no room for: a key repeated in one object (compared after escapes
/// are decoded, `"a"` and `"\u0061"` are one key; parsers differ on which copy wins), text
/// after the value, nesting deeper than 64, strings that are not UTF-8 or hold raw control
/// characters, numbers outside JSON's grammar. Strings are kept as their decoded UTF-8
/// bytes, so a PIN or code becomes ``SecretDigits`` without passing through a `String`.
public enum StrictJSON {
    /// A parsed value.
    public indirect enum Value: Sendable, Equatable {
        case object(Object)
        case array([Value])
        /// Decoded UTF-8 (escapes resolved).
        case string([UInt8])
        /// The number's text as sent (valid JSON number grammar).
        case number(String)
        case bool(Bool)
        case null

        /// The object, if this is one.
        public var object: Object? {
            if case .object(let object) = self { return object }
            return nil
        }

        /// The string as text, if this is one.
        public var text: String? {
            if case .string(let bytes) = self { return String(decoding: bytes, as: UTF8.self) }
            return nil
        }

        /// The value as compact JSON, an object's keys sorted (how the site stores a record).
        public var sortedJSON: String {
            switch self {
            case .object(let object):
                return "{" + object.keys.sorted().map { "\(Self.quoted($0)):\(object[$0]?.sortedJSON ?? "null")" }.joined(separator: ",") + "}"
            case .array(let items): return "[" + items.map(\.sortedJSON).joined(separator: ",") + "]"
            case .string(let bytes): return Self.quoted(String(decoding: bytes, as: UTF8.self))
            case .number(let text): return text
            case .bool(let value): return value ? "true" : "false"
            case .null: return "null"
            }
        }

        private static func quoted(_ text: String) -> String {
            VerificationRequestBody.jsonString(text)
        }
    }

    /// An object's members, in the order sent (every key once).
    public struct Object: Sendable, Equatable {
        public private(set) var keys: [String] = []
        private var values: [String: Value] = [:]

        /// Adds a member; false when the key is there already.
        mutating func insert(_ key: String, _ value: Value) -> Bool {
            guard values.updateValue(value, forKey: key) == nil else { return false }
            keys.append(key)
            return true
        }

        public subscript(key: String) -> Value? { values[key] }
    }

    /// Why a text is not strict JSON.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case duplicate(key: String)
        case unreadable

        public var description: String {
            switch self {
            case .duplicate(let key): return "the key '\(key.prefix(40))' appears twice in one object"
            case .unreadable: return "not readable as JSON"
            }
        }
    }

    /// `bytes` as one JSON value, or the first problem.
    public static func parse(_ bytes: [UInt8]) -> Result<Value, Problem> {
        var reader = Reader(bytes: bytes)
        do {
            reader.skipSpace()
            let value = try reader.value(depth: 0)
            reader.skipSpace()
            return reader.index == bytes.count ? .success(value) : .failure(.unreadable)
        } catch let problem as Problem {
            return .failure(problem)
        } catch {
            return .failure(.unreadable)
        }
    }
}
