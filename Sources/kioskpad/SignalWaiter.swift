#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Turns SIGINT/SIGTERM into an async wait, so a command can shut down in order.
enum SignalWaiter {
    static func wait(for signals: [Int32] = [SIGINT, SIGTERM]) async -> Int32 {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        for await number in stream {
            sources.forEach { $0.cancel() }
            return number
        }
        return 0
    }
}

/// Unbuffered stdout, so a reader of a pipe sees each line at once.
func writeLine(_ text: String) {
    var bytes = Array((text + "\n").utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        if written <= 0 { return }
        bytes = bytes.dropFirst(written)
    }
}

