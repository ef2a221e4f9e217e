extension StrictJSON {
    /// The one pass over the bytes (RFC 8259's grammar, and no repeated key).
    struct Reader {
        static let maxDepth = 64
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func skipSpace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D {
                index += 1
            }
        }

        mutating func value(depth: Int) throws -> Value {
            guard depth < Reader.maxDepth, index < bytes.count else { throw Problem.unreadable }
            switch bytes[index] {
            case UInt8(ascii: "{"): return .object(try object(depth: depth))
            case UInt8(ascii: "["): return .array(try array(depth: depth))
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return .number(try number())
            }
        }

        mutating func literal(_ word: StaticString, _ value: Value) throws -> Value {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw Problem.unreadable }
            let matches = word.withUTF8Buffer { expected in bytes[index..<index + count].elementsEqual(expected) }
            guard matches else { throw Problem.unreadable }
            index += count
            return value
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, kept as its text.
        mutating func number() throws -> String {
            let start = index
            if peek(UInt8(ascii: "-")) { index += 1 }
            if peek(UInt8(ascii: "0")) {
                index += 1
            } else {
                guard digits() > 0 else { throw Problem.unreadable }
            }
            if peek(UInt8(ascii: ".")) {
                index += 1
                guard digits() > 0 else { throw Problem.unreadable }
            }
            if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
                index += 1
                if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
                guard digits() > 0 else { throw Problem.unreadable }
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        private func peek(_ byte: UInt8) -> Bool {
            index < bytes.count && bytes[index] == byte
        }

        private mutating func digits() -> Int {
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index - start
        }

        mutating func object(depth: Int) throws -> Object {
            var object = Object()
            try list(closing: UInt8(ascii: "}")) { reader in
                guard reader.peek(UInt8(ascii: "\"")) else { throw Problem.unreadable }
                let key = String(decoding: try reader.string(), as: UTF8.self)
                reader.skipSpace()
                guard reader.peek(UInt8(ascii: ":")) else { throw Problem.unreadable }
                reader.index += 1
                reader.skipSpace()
                guard object.insert(key, try reader.value(depth: depth + 1)) else { throw Problem.duplicate(key: key) }
            }
            return object
        }

        mutating func array(depth: Int) throws -> [Value] {
            var items: [Value] = []
            try list(closing: UInt8(ascii: "]")) { reader in items.append(try reader.value(depth: depth + 1)) }
            return items
        }

        /// After an opening bracket: items read by `item`, separated by commas, up to `closing`.
        mutating func list(closing: UInt8, _ item: (inout Reader) throws -> Void) throws {
            index += 1
            skipSpace()
            if peek(closing) {
                index += 1
                return
            }
            while true {
                skipSpace()
                try item(&self)
                skipSpace()
                guard index < bytes.count else { throw Problem.unreadable }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == closing else { throw Problem.unreadable }
                index += 1
                return
            }
        }

        /// A string literal's decoded UTF-8 (checked: no raw control character, valid UTF-8).
        mutating func string() throws -> [UInt8] {
            index += 1
            var out: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard Self.isUTF8(out) else { throw Problem.unreadable }
                    return out
                case UInt8(ascii: "\\"):
                    try escape(into: &out)
                case 0x00..<0x20:
                    throw Problem.unreadable
                default:
                    out.append(byte)
                }
            }
            throw Problem.unreadable
        }

        private mutating func escape(into out: inout [UInt8]) throws {
            guard index < bytes.count else { throw Problem.unreadable }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw Problem.unreadable }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw Problem.unreadable }
                out += Array(String(Character(unicode)).utf8)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
            default: throw Problem.unreadable
            }
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw Problem.unreadable }
            var value: UInt32 = 0
            for byte in bytes[index..<index + 4] {
                let digit: UInt8
                switch byte {
                case 0x30...0x39: digit = byte - 0x30
                case 0x41...0x46: digit = byte - 0x41 + 10
                case 0x61...0x66: digit = byte - 0x61 + 10
                default: throw Problem.unreadable
                }
                value = value * 16 + UInt32(digit)
            }
            index += 4
            return value
        }

        /// Whether `bytes` is valid UTF-8 (decoded without making a `String`: it may be a PIN).
        static func isUTF8(_ bytes: [UInt8]) -> Bool {
            if bytes.allSatisfy({ $0 < 0x80 }) { return true }
            var iterator = bytes.makeIterator()
            var decoder = UTF8()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: return true
                case .error: return false
                }
            }
        }
    }
}
