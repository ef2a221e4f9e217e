import DoorController
import KioskPadCore

/// How a terminal is, as its `status` record says it (every `events.heartbeat_s`): keypad
/// health, the door contact's last state, tamper, the door's mode, and the last decision. Kept from the
/// events in the order they happen; never a PIN or code.
struct TerminalStatus: Sendable {
    private var keypadOK = true
    /// `closed`, `open`, `held_open`, `forced_open`, or `unknown` (no contact, or no change yet).
    private var door = "unknown"
    private var tamper = false
    private var lastDecision: String?
    private var lockedOut = false
    /// The door's mode and what set it (`normal`, or e.g. `release` by `fire_alarm`).
    private var mode = DoorModeChange(mode: .normal, source: "normal")

    mutating func note(_ event: TerminalEvent) {
        switch event {
        case .keypadHealth(let ok):
            keypadOK = ok
        case .doorInput(let input):
            switch input {
            case .opened: door = "open"
            case .closed: door = "closed"
            case .heldOpen: door = "held_open"
            case .forcedOpen: door = "forced_open"
            case .tamper(let active): tamper = active
            case .exitRequest: break
            }
        case .attemptDecided(_, _, let outcome, _, let locked, _):
            lastDecision = outcome.decision.rawValue
            lockedOut = locked
        case .doorMode(let change):
            mode = change
        default:
            break
        }
    }

    var fields: [(String, JournalValue)] {
        var fields: [(String, JournalValue)] = [
            ("keypad", .text(keypadOK ? "ok" : "failed")), ("door", .text(door)), ("tamper", .text(tamper ? "active" : "clear")),
            ("locked_out", .text(lockedOut ? "yes" : "no")), ("mode", .text(mode.mode.rawValue)), ("mode_source", .text(mode.source)),
        ]
        if let lastDecision { fields.append(("last_decision", .text(lastDecision))) }
        return fields
    }
}
