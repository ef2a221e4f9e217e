import Foundation
import KioskPadCore
import Yams

/// Value shapes that more than one section reads, parsed once.
enum ConfigValues {
    /// `HOST:PORT` with a port 0...65535; an IPv6 host may be bracketed (`[::1]:8787`), and
    /// the brackets are dropped. Nil when it is not that shape.
    static func hostAndPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        let host = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return (host, port)
    }

    /// A GPIO line as config writes it: an offset 0...1023 or a non-empty line name.
    enum LineValue {
        case line(LineReference)
        case offsetOutOfRange(Int)
        case invalid
    }

    static let lineOffsets = 0...1023

    static func line(_ node: Node?) -> LineValue {
        if let offset = node?.int {
            return lineOffsets.contains(offset) ? .line(.offset(offset)) : .offsetOutOfRange(offset)
        }
        if case .scalar = node, let name = node?.string, !name.isEmpty { return .line(.name(name)) }
        return .invalid
    }
}
