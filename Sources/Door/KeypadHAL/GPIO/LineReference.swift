/// A GPIO line, by offset on its chip or by its line name.
public enum LineReference: Hashable, Sendable, CustomStringConvertible {
    case offset(Int)
    case name(String)

    /// As written in config: `5` or `ROW0`.
    public var description: String {
        switch self {
        case .offset(let offset): return String(offset)
        case .name(let name): return name
        }
    }

    /// As said in an error message: `line 5` or `line 'ROW0'`.
    public var spoken: String {
        switch self {
        case .offset(let offset): return "line \(offset)"
        case .name(let name): return "line '\(name)'"
        }
    }
}
