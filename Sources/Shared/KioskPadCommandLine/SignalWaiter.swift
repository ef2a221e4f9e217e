import Dispatch
import TerminalIO

#if canImport(Glibc)
    import Glibc
#endif

/// Turns SIGINT/SIGTERM into an async wait, so a command can shut down in order.
public enum SignalWaiter {
    public static func wait(for signals: [Int32] = [SIGINT, SIGTERM]) async -> Int32 {
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
            for source in sources { source.cancel() }
            return number
        }
        return 0
    }
}

/// One line on unbuffered stdout (the plain display's writer), so a reader of a pipe sees it at once.
public func writeLine(_ text: String) {
    StandardOutput.write(text + "\n")
}
