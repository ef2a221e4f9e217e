import KeypadHAL
import KioskPadConfig
import Yams

extension ConfigValues {
    /// A GPIO line as config writes it: an offset 0...1023 or a non-empty line name.
    public enum LineValue {
        case line(LineReference)
        case offsetOutOfRange(Int)
        case invalid
    }

    public static let lineOffsets = 0...1023

    public static func line(_ node: Node?) -> LineValue {
        if let offset = node?.int {
            return lineOffsets.contains(offset) ? .line(.offset(offset)) : .offsetOutOfRange(offset)
        }
        if case .scalar = node, let name = node?.string, !name.isEmpty { return .line(.name(name)) }
        return .invalid
    }
}
