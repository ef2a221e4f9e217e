/// Finds JSON objects that repeat a key. JSON parsers disagree on which copy wins
/// (`{"decision":"granted","decision":"denied"}`), so a verifier answer or request with a
/// repeated key is ambiguous and both sides refuse it as malformed. Keys are compared after
/// decoding escapes (`"a"` and `"\u0061"` are the same key). Only duplicates are reported
/// here; syntax is the decoder's job, and anything this scanner cannot follow is reported
/// as unreadable so that it is refused too.
public enum DuplicateKeyCheck {
    /// What was found: a repeated key (its path), or text this scanner could not follow.
    public enum Finding: Error, Equatable, Sendable, CustomStringConvertible {
        case duplicate(key: String)
        case unreadable

        public var description: String {
            switch self {
            case .duplicate(let key): return "the key '\(key.prefix(40))' appears twice in one object"
            case .unreadable: return "not readable as JSON"
            }
        }
    }

    /// The first problem in `bytes`, or nil when every object's keys are distinct.
    public static func firstProblem(in bytes: [UInt8]) -> Finding? {
        var scanner = Scanner(bytes: bytes)
        do {
            scanner.skipSpace()
            try scanner.value(depth: 0)
            scanner.skipSpace()
            return scanner.index == bytes.count ? nil : .unreadable
        } catch let finding as Finding {
            return finding
        } catch {
            return .unreadable
        }
    }

    private struct Scanner {
        static let maxDepth = 64
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) throws {
            guard depth < Scanner.maxDepth, index < bytes.count else { throw Finding.unreadable }
            switch bytes[index] {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): _ = try string(keep: false)  // a value may be a PIN: never copied
            default:
                // A number or a literal: up to the next structural character.
                let start = index
                while index < bytes.count, !Array(",]} \t\r\n".utf8).contains(bytes[index]) { index += 1 }
                guard index > start else { throw Finding.unreadable }
            }
        }

        mutating func object(depth: Int) throws {
            var keys: Set<[UInt8]> = []
            try list(closing: UInt8(ascii: "}")) { scanner in
                guard scanner.index < scanner.bytes.count, scanner.bytes[scanner.index] == UInt8(ascii: "\"") else {
                    throw Finding.unreadable
                }
                let key = try scanner.string(keep: true)
                guard keys.insert(key).inserted else {
                    throw Finding.duplicate(key: String(decoding: key, as: UTF8.self))
                }
                scanner.skipSpace()
                guard scanner.index < scanner.bytes.count, scanner.bytes[scanner.index] == UInt8(ascii: ":") else {
                    throw Finding.unreadable
                }
                scanner.index += 1
                scanner.skipSpace()
                try scanner.value(depth: depth + 1)
            }
        }

        mutating func array(depth: Int) throws {
            try list(closing: UInt8(ascii: "]")) { scanner in try scanner.value(depth: depth + 1) }
        }

        /// After an opening bracket: items read by `item`, separated by commas, up to `closing`.
        mutating func list(closing: UInt8, _ item: (inout Scanner) throws -> Void) throws {
            index += 1
            skipSpace()
            if index < bytes.count, bytes[index] == closing {
                index += 1
                return
            }
            while true {
                skipSpace()
                try item(&self)
                skipSpace()
                guard index < bytes.count else { throw Finding.unreadable }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == closing else { throw Finding.unreadable }
                index += 1
                return
            }
        }

        /// A string literal, escapes decoded to UTF-8 when `keep` (keys), else only skipped.
        mutating func string(keep: Bool) throws -> [UInt8] {
            index += 1
            var out: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return out
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw Finding.unreadable }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800...0xDBFF).contains(scalar), index + 1 < bytes.count,
                            bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        {
                            index += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw Finding.unreadable }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw Finding.unreadable }
                        if keep { out += Array(String(Character(unicode)).utf8) }
                    case UInt8(ascii: "b"): if keep { out.append(0x08) }
                    case UInt8(ascii: "f"): if keep { out.append(0x0C) }
                    case UInt8(ascii: "n"): if keep { out.append(0x0A) }
                    case UInt8(ascii: "r"): if keep { out.append(0x0D) }
                    case UInt8(ascii: "t"): if keep { out.append(0x09) }
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): if keep { out.append(escape) }
                    default: throw Finding.unreadable
                    }
                default:
                    if keep { out.append(byte) }
                }
            }
            throw Finding.unreadable
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw Finding.unreadable }
            var value: UInt32 = 0
            for byte in bytes[index..<index + 4] {
                guard let digit = UInt32(String(UnicodeScalar(byte)), radix: 16) else { throw Finding.unreadable }
                value = value * 16 + digit
            }
            index += 4
            return value
        }
    }
}
