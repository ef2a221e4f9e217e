import DoorController
import KioskPadCore

/// The terminal's feedback on every OSDP reader's own LED and buzzer: green and two short
/// beeps for a grant, red and a long beep for a denial, red flashing for a lockout, and the
/// alarm (three long beeps, red flashing) when the door is held or forced open or tampered.
/// Commands are queued for the bus, which sends them in place of the next poll; a reader that
/// is down misses them.
public struct OSDPReaderFeedback: TerminalEventSink {
    private let commands: OSDPCommandQueue

    public init(commands: OSDPCommandQueue) {
        self.commands = commands
    }

    public static let red: UInt8 = 1
    public static let green: UInt8 = 2

    /// The commands for `event` (none for most events).
    public static func commands(for event: TerminalEvent) -> [OSDPOutgoing] {
        switch event {
        case .attemptDecided(_, let kind, let outcome, _, let lockedOut, _):
            switch outcome {
            case .denied where outcome.asksForPIN(after: kind):
                // The card was read; its PIN is asked for on the keypad: one short beep, no red.
                return [.buzzer(onTenths: 2, offTenths: 0, count: 1)]
            case .granted:
                return [.led(color: green, onTenths: 20, offTenths: 0, forTenths: 20), .buzzer(onTenths: 1, offTenths: 1, count: 2)]
            case .denied where lockedOut:
                return [.led(color: red, onTenths: 2, offTenths: 2, forTenths: 30), .buzzer(onTenths: 6, offTenths: 0, count: 1)]
            case .denied, .unavailable:
                return [.led(color: red, onTenths: 10, offTenths: 0, forTenths: 10), .buzzer(onTenths: 6, offTenths: 0, count: 1)]
            }
        case .doorInput(.heldOpen), .doorInput(.forcedOpen), .doorInput(.tamper(active: true)):
            return [.led(color: red, onTenths: 2, offTenths: 2, forTenths: 30), .buzzer(onTenths: 5, offTenths: 3, count: 3)]
        default:
            return []
        }
    }

    public func handle(_ event: TerminalEvent) async {
        for command in Self.commands(for: event) { commands.send(command) }
    }
}
