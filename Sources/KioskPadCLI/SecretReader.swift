#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import KeypadCore
import TerminalIO

/// Reads one PIN from stdin straight into a wiped-after-use buffer, with echo off on a terminal.
enum SecretReader {
    static func readPIN(prompt: String) throws -> SecretDigits {
        let range = EntryOptions.lengthRange
        let interactive = isatty(STDIN_FILENO) == 1
        if interactive {
            // Ctrl-C at the prompt must not leave the terminal without echo.
            TerminalRestorer.shared.restoreOnTerminatingSignals()
            writeStderr(prompt)
            _ = TerminalRestorer.shared.enterNoEchoMode(fd: STDIN_FILENO)
        }
        defer {
            if interactive {
                TerminalRestorer.shared.restore()
                writeStderr("\n")
            }
        }
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

private func writeStderr(_ text: String) {
    var bytes = Array(text.utf8)
    _ = write(STDERR_FILENO, &bytes, bytes.count)
}
