/// The model's only source of time: a monotonic reading since an arbitrary origin
/// (``TerminalClock`` in the terminal, a manual clock in tests).
public protocol EntryClock: Sendable {
    var now: Duration { get }
}
