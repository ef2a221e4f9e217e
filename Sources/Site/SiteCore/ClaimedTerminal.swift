import KioskPadCore

/// Which door a request to `/verify`, `/v1/events` or `/v1/credentials` says it comes from,
/// to choose the key its signature is checked with. A door of this release names itself in
/// the `kioskpad-terminal` header, so the signature is checked over the raw body before any
/// JSON is parsed; an older door, which sends no such header, is found
/// by parsing its body. Either way the name is checked
/// against the `terminal_id` pattern before any key is chosen (a look-alike must not pick the
/// site secret), and the decoded body must name the same door.
public enum ClaimedTerminal: Equatable, Sendable {
    /// The door named (nil: none, so the site secret applies).
    case named(String?)
    /// Refused before any key is chosen: why.
    case invalid(String)

    /// The HTTP header a door names itself in.
    public static let header = "kioskpad-terminal"

    static func of(_ request: ReferenceVerifier.Incoming, inBody: ([UInt8]) -> String?) -> ClaimedTerminal {
        if let named = request.terminal {
            return Identifier.isValid(named)
                ? .named(named) : .invalid("\(header) must be a terminal_id: 1-64 of letters, digits, '.', '_' or '-'")
        }
        let named = inBody(request.body)
        if let named, !Identifier.isValid(named) { return .invalid("terminal_id must be 1-64 of letters, digits, '.', '_' or '-'") }
        return .named(named)
    }

    /// The 400 reason when the body names another door than the request claimed (in the
    /// header, or for an older door in its first record): both names.
    static func mismatch(body: String, claimed: String?) -> String {
        "the body names terminal_id \(body), the request claimed \(claimed ?? "none")"
    }
}
