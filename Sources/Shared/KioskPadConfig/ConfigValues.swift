import Foundation
import KioskPadCore
import Yams

/// Value shapes that more than one section reads, parsed once.
public enum ConfigValues {
    /// `HOST:PORT` with a port 0...65535; an IPv6 host may be bracketed (`[::1]:8787`), and
    /// the brackets are dropped. Nil when it is not that shape.
    public static func hostAndPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        let host = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return (host, port)
    }
}
