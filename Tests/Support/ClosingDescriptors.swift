import Foundation

/// Starts a child through bash, which first closes every descriptor above 2: Foundation's
/// `Process` lets a child inherit the test process's other descriptors, and a long-lived
/// child (a database or MQTT broker, a terminal) holding another test's pipe or socket
/// keeps that test from ever seeing its end (bash, not dash, which takes one-digit
/// descriptors only).
public enum ClosingDescriptors {
    /// bash's script: close 3 and up, then exec the command in place (same pid).
    public static let script = "for fd in $(ls /proc/$$/fd); do [ \"$fd\" -gt 2 ] && eval \"exec $fd>&-\"; done; exec \"$@\""

    /// The argv that runs `command` this way.
    public static func argv(_ command: [String]) -> [String] {
        ["/bin/bash", "-c", script, "bash"] + command
    }
}
