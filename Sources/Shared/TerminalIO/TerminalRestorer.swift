import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Puts a terminal back the way it was found. Components register what they changed (raw
/// mode, echo off, a hidden cursor) and ``restore()`` undoes all of it exactly once; it is
/// safe to call repeatedly. It installs no signal handlers of its own: `run` and `simulate`
/// stop through their service lifecycle and restore on the way out, so a signal can never
/// race the door's graceful shutdown. Short commands without a lifecycle opt in with
/// ``restoreOnTerminatingSignals()``.
public final class TerminalRestorer: Sendable {
    /// The process-wide restorer.
    public static let shared = TerminalRestorer()

    private struct State: @unchecked Sendable {
        // @unchecked: termios is a plain C struct, only touched under the mutex.
        var savedModes: [(fd: Int32, modes: termios)] = []
        var trailers: [String] = []
        var signalSources: [any DispatchSourceSignal] = []
    }

    private let state = Mutex(State())

    private init() {}

    /// Switches `fd` to raw mode (no echo, no line buffering, no signals from keys) and
    /// remembers how to undo it. Returns false when `fd` is not a terminal.
    public func enterRawMode(fd: Int32) -> Bool {
        var original = termios()
        guard isatty(fd) == 1, tcgetattr(fd, &original) == 0 else { return false }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INPCK | ISTRIP | BRKINT)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1  // a read returns after one byte
            cc[Int(VTIME)] = 0
        }
        state.withLock { $0.savedModes.append((fd, original)) }
        return tcsetattr(fd, TCSAFLUSH, &raw) == 0
    }

    /// Turns echo off on `fd` (for reading a PIN) and remembers how to undo it. Returns
    /// false when `fd` is not a terminal.
    public func enterNoEchoMode(fd: Int32) -> Bool {
        var original = termios()
        guard isatty(fd) == 1, tcgetattr(fd, &original) == 0 else { return false }
        var quiet = original
        quiet.c_lflag &= ~tcflag_t(ECHO)
        state.withLock { $0.savedModes.append((fd, original)) }
        return tcsetattr(fd, TCSAFLUSH, &quiet) == 0
    }

    /// Remembers text to write to stdout on restore (for example "show cursor").
    public func writeOnRestore(_ text: String) {
        state.withLock { $0.trailers.append(text) }
    }

    /// Undoes everything registered so far. Idempotent.
    public func restore() {
        let (modes, trailers) = state.withLock { state -> ([(fd: Int32, modes: termios)], [String]) in
            defer {
                state.savedModes.removeAll()
                state.trailers.removeAll()
            }
            return (state.savedModes, state.trailers)
        }
        for text in trailers.reversed() {
            text.utf8CString.withUnsafeBufferPointer { buffer in
                _ = write(STDOUT_FILENO, buffer.baseAddress, buffer.count - 1)
            }
        }
        for entry in modes.reversed() {
            var original = entry.modes
            _ = tcsetattr(entry.fd, TCSAFLUSH, &original)
        }
    }

    /// For commands that run without a service lifecycle (`pin hash`, `display test`): on
    /// SIGINT, SIGTERM or SIGHUP, restore, then exit with 128 + the signal number.
    public func restoreOnTerminatingSignals() {
        state.withLock { state in
            guard state.signalSources.isEmpty else { return }
            for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler {
                    TerminalRestorer.shared.restore()
                    exit(128 + signalNumber)
                }
                source.resume()
                state.signalSources.append(source)
            }
        }
    }
}
