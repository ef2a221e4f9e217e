import Foundation
import KioskPadCore
import TerminalIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Simulated mode's keypad: the laptop keyboard in raw mode when stdin is a terminal
/// (restored on every exit), or a script read from a pipe or file as it arrives.
public struct TerminalKeySource: KeySource {
    public let fd: Int32
    public let isScripted: Bool

    public init(fd: Int32 = STDIN_FILENO) {
        self.fd = fd
        isScripted = isatty(fd) != 1
    }

    public func start(
        deliver: @escaping @Sendable (KeySourceEvent) -> Void,
        finished: @escaping @Sendable ((any Error)?) -> Void
    ) -> KeySourceRun {
        let fd = self.fd
        let scripted = isScripted
        if !scripted { _ = TerminalRestorer.shared.enterRawMode(fd: fd) }
        // A blocking read belongs on its own thread, not in the cooperative pool.
        let thread = Thread {
            var decoder = KeyByteDecoder(scripted: scripted)
            var buffer = [UInt8](repeating: 0, count: 64)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                for event in decoder.decode(buffer[0..<count]) { deliver(event) }
                for index in 0..<count { buffer[index] = 0 }  // the chunk held typed digits
            }
            finished(nil)
        }
        thread.name = "kioskpad-keys"
        thread.start()
        // A blocking read(2) cannot be interrupted here; the process ends it at exit.
        return KeySourceRun(stop: {})
    }
}
