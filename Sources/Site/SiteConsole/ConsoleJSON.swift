import Foundation
import KioskPadStorage

/// The console's and the API's JSON answers written from the dictionaries and arrays the
/// handlers build: keys in byte order (the same answer every time), strings escaped as RFC
/// 8259 asks. Foundation's JSONSerialization on Linux sorts keys with ICU collation and casts
/// each value dynamically, which made a page of 100 users cost some 30 ms; this walks the
/// values with plain Swift casts.
enum ConsoleJSON {
    static func bytes(_ value: Any) -> [UInt8] {
        var out = ""
        out.reserveCapacity(256)
        write(value, to: &out)
        return Array(out.utf8)
    }

    static func write(_ value: Any, to out: inout String) {
        switch value {
        case let text as String: out += JSONValue.quoted(text)
        case let text as Substring: out += JSONValue.quoted(String(text))
        case let flag as Bool: out += flag ? "true" : "false"
        case let number as Int: out += String(number)
        case let number as Int64: out += String(number)
        case let number as Int32: out += String(number)
        case let number as UInt64: out += String(number)
        case let number as Double: out += number.isFinite ? "\(number)" : "null"
        case is NSNull: out += "null"
        case let object as [String: Any]:
            out += "{"
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                out += JSONValue.quoted(key)
                out += ":"
                write(object[key]!, to: &out)
            }
            out += "}"
        case let items as [Any]:
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                write(item, to: &out)
            }
            out += "]"
        default:
            // An Optional carried in an Any: its value, or null.
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                if let wrapped = mirror.children.first?.value { write(wrapped, to: &out) } else { out += "null" }
            } else {
                out += JSONValue.quoted(String(describing: value))
            }
        }
    }
}
