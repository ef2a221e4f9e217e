import KeypadCore
import KioskPadController
import Synchronization

/// Whether the keypad and the verifier path work, for `/healthz` and the systemd watchdog.
/// The verifier path counts as broken after an attempt ends in a verifier error, until one
/// gets a clear answer again.
public final class HealthState: TerminalEventSink {
    private let state = Mutex<(keypad: Bool, verifier: Bool)>((true, true))

    public init() {}

    public func handle(_ event: TerminalEvent) async {
        switch event {
        case .keypadHealth(let ok):
            state.withLock { $0.keypad = ok }
        case .attemptDecided(_, _, let outcome, _, _):
            state.withLock { $0.verifier = outcome != .unavailable }
        default:
            break
        }
    }

    public var keypadOK: Bool { state.withLock { $0.keypad } }
    public var verifierOK: Bool { state.withLock { $0.verifier } }
    public var healthy: Bool { keypadOK && verifierOK }

    /// A line for `/healthz` and the systemd status.
    public var summary: String {
        "keypad \(keypadOK ? "ok" : "failed"), verifier \(verifierOK ? "ok" : "unavailable")"
    }
}
