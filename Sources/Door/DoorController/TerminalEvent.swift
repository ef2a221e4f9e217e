import KioskPadAccess
import KioskPadCore

/// Where an attempt's decision came from, carried by the decision itself.
public struct DecisionProvenance: Sendable, Equatable {
    /// Submitted by a remote unlock command (Home Assistant), not typed at the door.
    public let remote: Bool
    /// Set when the verifier could not answer: the door decided from its credential replica,
    /// or refused to.
    public let offline: OfflineDecision?

    public init(remote: Bool = false, offline: OfflineDecision? = nil) {
        self.remote = remote
        self.offline = offline
    }

    /// Typed or presented at the door and answered by the verifier.
    public static let keypad = DecisionProvenance()
}

/// What happened at the terminal, for everything that reacts to it without being part of
/// entry: the door relay, feedback outputs, the audit journal, metrics. Never carries the
/// digits typed.
public enum TerminalEvent: Sendable, Equatable {
    case keyPressed
    /// A verifier answered (or failed) for one attempt; `attemptID` is the request's
    /// `attempt_id` (the same id in logs, journal and on the wire); `lockedOut` when this
    /// denial started a lockout; `provenance`: a remote unlock command or keys, and whether
    /// the door decided it from its credential replica.
    case attemptDecided(
        attemptID: String, kind: AttemptKind, outcome: AttemptOutcome, latency: Duration, lockedOut: Bool,
        provenance: DecisionProvenance = .keypad)
    /// The site answered a PIN chosen at the door with an enrolment code (`attemptID` as on
    /// the wire); `lockedOut` when a wrong code started a lockout. Never opens the door.
    case pinEnrolment(attemptID: String, outcome: EnrolmentOutcome, lockedOut: Bool)
    /// A remote unlock command (Home Assistant's `lock` entity, `mqtt.remote_unlock`) that was
    /// not submitted: `off`, `no_code`, `retained`, `busy`, `locked_out` or `tampered`. One
    /// that was submitted is an ``attemptDecided`` with a remote provenance.
    case remoteUnlockRefused(reason: String)
    /// A command from the site's desk (remote unlock or lock, signed and fresh) acted on or
    /// refused: `command` its number (0 when it could not be read), `action` `unlock` or
    /// `lock`, `seconds` the time the relay was given, `result` `unlocked`, `locked` or
    /// `refused`, and `reason` for a refusal (`lockdown`, `released`, `no_relay`,
    /// `bad_signature`, `other_door`, `stale`).
    case remoteCommand(command: Int64, action: String, seconds: Int?, result: String, reason: String?)
    /// A stuck key or a ghosting scan (tamper-like faults).
    case keypadFault(kind: String, detail: String)
    /// A Wiegand keypad sent a frame that was dropped (`reason`: `bit_count`, `parity`,
    /// `check_nibble`, `pin_length`); one event per frame.
    case wiegandFrameDropped(reason: String)
    /// The keypad stopped or came back.
    case keypadHealth(ok: Bool)
    /// An OSDP reader (by its address) came online, went offline, reported tamper or power,
    /// or was refused.
    case reader(address: Int, report: ReaderReport)
    /// A message from an OSDP reader was dropped (`reason`: `check`, `length`, `sequence`, ...);
    /// one event per message.
    case readerMessageDropped(reason: String)
    case displayError
    /// The door relay was energised for `seconds`, or released (`unlocked` false).
    case door(unlocked: Bool, seconds: Int)
    /// What the door's own inputs said: contact, exit button, tamper.
    case doorInput(DoorInputEvent)
    /// The door's mode changed: lockdown or release set by the site (`source` `site`, with
    /// who set it), release from the fire-alarm input (`fire_alarm`), or back to normal.
    case doorMode(DoorModeChange)
    /// The terminal started, or began to stop (the last event a sink gets).
    case started
    case stopping
    /// `count` events did not fit in `sink`'s queue and were dropped for it.
    case eventsDropped(sink: String, count: Int)
    /// Every `events.heartbeat_s`: the terminal says it is there and how it is (a `status`
    /// journal record), so a door where nothing happens is still seen.
    case heartbeat
}

/// Receives ``TerminalEvent``s in order, from its own queue of a ``TerminalEventBus``.
public protocol TerminalEventSink: Sendable {
    func handle(_ event: TerminalEvent) async
    /// True for the durable record (the journal): an attempt's result is shown only once this
    /// sink has handled its event (``TerminalEventBus/publishRecorded(_:within:)``), so a power
    /// cut never loses an attempt whose result the door showed. False by default.
    var isDurableRecord: Bool { get }
}

extension TerminalEventSink {
    public var isDurableRecord: Bool { false }
}

/// An event from the door's inputs (`door.contact`, `door.exit_button`, `tamper`), as the
/// journal, events, metrics and feedback see it.
public enum DoorInputEvent: Sendable, Equatable {
    case opened
    case closed
    /// Still open `seconds` after it opened (`door.held_open_s`); once per opening.
    case heldOpen(seconds: Int)
    /// Opened with the relay off and no unlock within `door.open_grace_s`.
    case forcedOpen
    /// The exit button was pressed: the door unlocks; never an attempt.
    case exitRequest
    /// The case tamper switch tripped (`active`) or was restored.
    case tamper(active: Bool)

    /// The journal's and the events' `type`.
    public var recordType: DoorRecordType {
        switch self {
        case .opened: return .doorOpened
        case .closed: return .doorClosed
        case .heldOpen: return .heldOpen
        case .forcedOpen: return .forcedOpen
        case .exitRequest: return .exitRequest
        case .tamper(let active): return active ? .tamper : .tamperCleared
        }
    }
}

/// What an OSDP reader's supervision reported; ``recordType`` names its journal record.
public enum ReaderReport: Sendable, Equatable {
    /// Ready: through the Secure Channel when `secure`.
    case online(secure: Bool)
    case offline
    case tamper(active: Bool)
    /// `ok` false: the reader reported a power failure.
    case power(ok: Bool)
    /// Not used: `clear_text`, `key`, `no_secure_channel` or `mac`.
    case refused(reason: String)

    public var recordType: DoorRecordType {
        switch self {
        case .online: return .readerOnline
        case .offline: return .readerOffline
        case .tamper(let active): return active ? .readerTamper : .readerTamperCleared
        case .power(let ok): return ok ? .readerPowerRestored : .readerPowerFailed
        case .refused: return .readerRefused
        }
    }
}

/// The door's mode now and what put it there, as the journal, metrics and Home Assistant see it.
public struct DoorModeChange: Sendable, Equatable {
    public let mode: DoorMode
    /// `site` (the verifier's, from the door's replica), `fire_alarm` (`door.fire_release`), or `normal`.
    public let source: String
    /// Who set the site's mode (an administrator, `cli:USER`); nil for the fire alarm.
    public let setBy: String?

    public init(mode: DoorMode, source: String, setBy: String? = nil) {
        self.mode = mode
        self.source = source
        self.setBy = setBy
    }
}
