import DoorController
import KeypadHAL
import KioskPadCore

/// Buzzer and LED patterns: a click per key, two short beeps and the green LED for a
/// grant, a long beep and the red LED for a denial, one short beep when a card's PIN is asked for, the red LED blinking for a lockout,
/// and an alarm of three long beeps when the door is held open, forced open or tampered.
/// A failing output is ignored: feedback never holds up entry or the door.
public actor FeedbackPlayer: TerminalEventSink {
    /// One step of a pattern: on or off for a time.
    public typealias Step = (on: Bool, duration: Duration)

    public static let click: [Step] = [(true, .milliseconds(20))]
    public static let grantedBeep: [Step] = [(true, .milliseconds(100)), (false, .milliseconds(80)), (true, .milliseconds(100))]
    public static let deniedBeep: [Step] = [(true, .milliseconds(600))]
    /// A card read at a card-and-PIN door: type the PIN now.
    public static let promptBeep: [Step] = [(true, .milliseconds(200))]
    public static let alarmBeep: [Step] = Array(repeating: [(true, Duration.milliseconds(500)), (false, .milliseconds(250))], count: 3).flatMap { $0 }
    public static let lockedBlink: [Step] = Array(repeating: [(true, Duration.milliseconds(150)), (false, .milliseconds(150))], count: 5).flatMap { $0 }

    private let buzzer: (any DigitalOutput)?
    private let grantedLED: (any DigitalOutput)?
    private let deniedLED: (any DigitalOutput)?
    private let clock: TerminalClock

    public init(buzzer: (any DigitalOutput)?, grantedLED: (any DigitalOutput)?, deniedLED: (any DigitalOutput)?, clock: TerminalClock = .continuous) {
        self.clock = clock
        self.buzzer = buzzer
        self.grantedLED = grantedLED
        self.deniedLED = deniedLED
        for output in [buzzer, grantedLED, deniedLED] { try? output?.set(false) }
    }

    public func handle(_ event: TerminalEvent) async {
        switch event {
        case .keyPressed:
            play(FeedbackPlayer.click, on: buzzer)
        case .attemptDecided(_, let kind, let outcome, _, let lockedOut, _):
            switch outcome {
            case .denied where outcome.asksForPIN(after: kind):
                play(FeedbackPlayer.promptBeep, on: buzzer)
            case .granted:
                play(FeedbackPlayer.grantedBeep, on: buzzer)
                play([(true, .seconds(2))], on: grantedLED)
            case .denied where lockedOut:
                play(FeedbackPlayer.deniedBeep, on: buzzer)
                play(FeedbackPlayer.lockedBlink, on: deniedLED)
            case .denied, .unavailable:
                play(FeedbackPlayer.deniedBeep, on: buzzer)
                play([(true, .seconds(1))], on: deniedLED)
            }
        case .doorInput(.heldOpen), .doorInput(.forcedOpen), .doorInput(.tamper(active: true)):
            play(FeedbackPlayer.alarmBeep, on: buzzer)
            play(FeedbackPlayer.lockedBlink, on: deniedLED)
        default:
            break
        }
    }

    /// Plays `steps` on `output` in the background, ending off.
    private nonisolated func play(_ steps: [Step], on output: (any DigitalOutput)?) {
        guard let output else { return }
        let clock = self.clock
        Task {
            for step in steps {
                try? output.set(step.on)
                try? await clock.sleep(for: step.duration)
            }
            try? output.set(false)
        }
    }
}
