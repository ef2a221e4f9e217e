import Foundation

/// An `application/x-www-form-urlencoded` body or query string: `+` is a space, `%XX` a
/// byte; a name given twice keeps its first value.
struct FormBody: Sendable {
    private(set) var fields: [String: String] = [:]

    init(_ text: String) {
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = FormBody.decode(parts[0]), !name.isEmpty else { continue }
            let value = parts.count > 1 ? FormBody.decode(parts[1]) ?? "" : ""
            if fields[name] == nil { fields[name] = value }
        }
    }

    subscript(_ name: String) -> String? { fields[name] }

    /// The field trimmed of spaces; nil when absent or empty.
    func text(_ name: String) -> String? {
        guard let value = fields[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    private static func decode(_ part: Substring) -> String? {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// Percent-encodes `value` for a query string.
    static func encode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
