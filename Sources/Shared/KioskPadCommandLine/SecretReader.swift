import KioskPadCore
import TerminalIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads one PIN from stdin straight into a wiped-after-use buffer, with echo off on a terminal.
public enum SecretReader {
    public static func readPIN(prompt: String) throws -> SecretDigits {
        let range = EntryOptions.lengthRange
        let silent = SilentPrompt(prompt)
        defer { silent.end() }
        let buffer = DigitBuffer(capacity: range.upperBound)
        var byte: UInt8 = 0
        var invalid = false
        while read(STDIN_FILENO, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
            if (0x30...0x39).contains(byte) && !buffer.isFull {
                buffer.append(byte - 0x30)
            } else {
                invalid = true
            }
        }
        byte = 0
        guard !invalid, range.contains(buffer.count) else {
            buffer.wipe()
            throw UsageError(description: "the PIN must be \(range.lowerBound) to \(range.upperBound) digits (0-9) on one line")
        }
        return buffer.take()
    }
}

extension SecretReader {
    /// Reads one password line (UTF-8, 12-256 bytes) with echo off on a terminal. The caller
    /// zeroes the bytes when done.
    public static func readPassword(prompt: String) throws -> [UInt8] {
        let silent = SilentPrompt(prompt)
        defer { silent.end() }
        var password: [UInt8] = []
        password.reserveCapacity(257)
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
            if password.count <= 256 { password.append(byte) }
        }
        byte = 0
        guard (12...256).contains(password.count), String(validating: password, as: UTF8.self) != nil else {
            for index in password.indices { password[index] = 0 }
            throw UsageError(description: "the password must be 12 to 256 bytes of UTF-8 on one line")
        }
        return password
    }
}

extension SecretReader {
    /// Reads one line of at most `limit` bytes with echo off on a terminal (a pairing code,
    /// kept out of `ps` and the shell's history). The caller zeroes the bytes when done.
    public static func readLine(prompt: String, limit: Int) -> [UInt8] {
        let silent = SilentPrompt(prompt)
        defer { silent.end() }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
            if line.count < limit { line.append(byte) }
        }
        byte = 0
        return line
    }
}

/// A prompt on stderr with echo off while stdin is a terminal (nothing when it is not).
private struct SilentPrompt {
    let interactive = isatty(STDIN_FILENO) == 1

    init(_ prompt: String) {
        guard interactive else { return }
        // Ctrl-C at the prompt must not leave the terminal without echo.
        TerminalRestorer.shared.restoreOnTerminatingSignals()
        writeStderr(prompt)
        _ = TerminalRestorer.shared.enterNoEchoMode(fd: STDIN_FILENO)
    }

    func end() {
        guard interactive else { return }
        TerminalRestorer.shared.restore()
        writeStderr("\n")
    }
}

private func writeStderr(_ text: String) {
    var bytes = Array(text.utf8)
    _ = write(STDERR_FILENO, &bytes, bytes.count)
}
