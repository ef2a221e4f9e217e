import KeypadCore
import KeypadVerifier

/// What happened at the terminal, for everything that reacts to it without being part of
/// entry: the door relay, feedback outputs, the audit journal, metrics. Never carries the
/// digits typed.
public enum TerminalEvent: Sendable, Equatable {
    case keyPressed
    /// A verifier answered (or failed) for one attempt; `attemptID` is the request's
    /// `attempt_id` (the same id in logs, journal and on the wire); `lockedOut` when this
    /// denial started a lockout.
    case attemptDecided(attemptID: String, kind: AttemptKind, outcome: AttemptOutcome, latency: Duration, lockedOut: Bool)
    /// A stuck key or a ghosting scan (tamper-like faults).
    case keypadFault(kind: String, detail: String)
    /// The keypad stopped or came back.
    case keypadHealth(ok: Bool)
    case displayError
    /// The door relay was energised for `seconds`, or released (`unlocked` false).
    case door(unlocked: Bool, seconds: Int)
    /// The terminal started, or began to stop (the last event a sink gets).
    case started
    case stopping
    /// `count` events did not fit in `sink`'s queue and were dropped for it.
    case eventsDropped(sink: String, count: Int)
}

/// Receives ``TerminalEvent``s in order, from its own queue of a ``TerminalEventBus``.
public protocol TerminalEventSink: Sendable {
    func handle(_ event: TerminalEvent) async
}
