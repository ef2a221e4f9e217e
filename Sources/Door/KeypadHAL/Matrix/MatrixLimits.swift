/// Limits of a key matrix that the config and the keypad both enforce.
public enum MatrixLimits {
    /// Rows and columns a matrix may have, each.
    public static let maxLines = 8
}
