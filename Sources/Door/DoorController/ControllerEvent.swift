import KeypadHAL
import KioskPadAccess
import KioskPadCore

/// Everything the controller's single loop reacts to, in arrival order.
enum ControllerEvent: Sendable {
    case input(KeySourceEvent)
    case inputEnded
    case tick
    /// `attempt` is the model's number for the entry, `id` the request's attempt_id, `kind`
    /// what was submitted (pin, code or card).
    case verdict(attempt: UInt64, id: String, kind: AttemptKind, outcome: AttemptOutcome, provenance: DecisionProvenance, latency: Duration)
    /// The site's answer to a PIN chosen at the door (attempt `attempt`, request `id`).
    case enrolled(attempt: UInt64, id: String, outcome: EnrolmentOutcome)
    /// The case tamper switch tripped or was restored.
    case tamper(Bool)
    /// The door's mode changed (lockdown, release, normal).
    case mode(DoorMode)
    /// A PIN from a remote unlock command, checked as if typed here.
    case remote(SecretDigits)
    /// New display texts (a reload).
    case texts(DisplayTexts)
    /// The watchdog asks whether the loop still handles events: answered true when reached.
    case probe(OneShotAnswer)
}
