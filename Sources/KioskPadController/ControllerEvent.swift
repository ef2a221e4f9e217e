import KeypadCore
import KeypadHAL

/// Everything the controller's single loop reacts to, in arrival order.
enum ControllerEvent: Sendable {
    case input(KeySourceEvent)
    case inputEnded
    case tick
    case verdict(attempt: UInt64, outcome: AttemptOutcome, latency: Duration)
}
