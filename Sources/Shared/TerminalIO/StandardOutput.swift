#if canImport(Glibc)
    import Glibc
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    import Darwin
    private let systemWrite = Darwin.write
#endif

/// Standard output written unbuffered with `write(2)`, so a reader of a pipe (a test, a
/// supervisor) sees each line or frame at once.
public enum StandardOutput {
    public static let write: @Sendable (String) -> Void = { text in
        var remaining = Array(text.utf8)[...]
        while !remaining.isEmpty {
            let written = remaining.withUnsafeBytes { systemWrite(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            remaining = remaining.dropFirst(written)
        }
    }
}
