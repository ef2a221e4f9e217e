/// A problem that the user fixes at one setting: the key path it concerns (`keypad.rows`,
/// `verifier.secret_file`, `display.i2c_bus`), what is wrong, and what would fix it when
/// that is known. Every part of the terminal reports start-up problems with this one type,
/// so the key survives from where the problem is found to the line the user reads.
public struct KeyedError: Error, Equatable, Sendable, CustomStringConvertible, ExitCodeProviding {
    /// What kind of fix the problem needs, which decides the exit code.
    public enum Kind: Equatable, Sendable {
        /// The setting's value cannot work: bad usage or config (exit 2).
        case configuration
        /// What the setting names could not be opened or used now: a runtime failure
        /// (exit 1). `retryable` when it may clear by itself (a chip that appears later,
        /// a busy line, a permission granted).
        case unavailable(retryable: Bool)
    }

    public let key: String
    public let message: String
    /// What would fix it, appended to the message after a semicolon.
    public let fix: String?
    public let kind: Kind

    public init(key: String, message: String, fix: String? = nil, kind: Kind = .configuration) {
        self.key = key
        self.message = message
        self.fix = fix
        self.kind = kind
    }

    /// True when only a change of the setting can fix it (waiting and retrying cannot).
    public var needsConfigChange: Bool {
        if case .unavailable(retryable: true) = kind { return false }
        return true
    }

    public var exitCode: Int32 { kind == .configuration ? 2 : 1 }

    /// For example `verifier.users_file: /etc/kioskpad/users lists no users; add lines ...`.
    public var description: String {
        let head = key.isEmpty ? message : "\(key): \(message)"
        return fix.map { "\(head); \($0)" } ?? head
    }
}

/// An error that stands for a process exit code (docs/commands.md: 2 bad usage or config,
/// 1 runtime failure). `kioskpad`'s `main` maps every error through this, in one place.
public protocol ExitCodeProviding: Error, CustomStringConvertible {
    var exitCode: Int32 { get }
}
