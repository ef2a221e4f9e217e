/// The rule for names people type into config and files: terminal ids and user names.
public enum Identifier {
    /// 1-64 ASCII letters, digits, `.`, `_` or `-`.
    public static func isValid(_ text: String) -> Bool {
        (1...64).contains(text.count)
            && text.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-": return true
                default: return false
                }
            }
    }
}
