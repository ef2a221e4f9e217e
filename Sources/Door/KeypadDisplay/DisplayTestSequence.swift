import KioskPadCore

/// What `kioskpad display test` shows, in order: two test patterns (every cell used, then
/// full blocks for contrast), then every kind of frame the terminal can show.
public enum DisplayTestSequence {
    public static func frames(composer: FrameComposer) -> [(name: String, frame: Frame)] {
        let geometry = composer.geometry
        let characters = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        let pattern = (0..<geometry.rows).map { row in
            String((0..<geometry.columns).map { characters[(row * geometry.columns + $0) % characters.count] })
        }
        let blocks = Array(repeating: String(repeating: HD44780Encoder.fullBlock, count: geometry.columns), count: geometry.rows)
        let slots = 4
        func frame(_ phase: EntryPhase, filled: Int = 0, locked: Int = 0, challenge: String? = nil, message: String? = nil) -> Frame {
            composer.compose(
                EntrySnapshot(
                    phase: phase, mode: .pin, slotCount: slots, filledCount: filled, challengeCode: challenge,
                    lockSecondsRemaining: locked, message: message))
        }
        return [
            ("pattern", Frame(rows: pattern)),
            ("blocks", Frame(rows: blocks)),
            ("prompt", frame(.ready)),
            ("slots", frame(.entering, filled: 2)),
            ("verifying", frame(.verifying, filled: slots)),
            ("granted", frame(.result(.granted), message: "Welcome")),
            ("denied", frame(.result(.denied))),
            ("unavailable", frame(.result(.unavailable))),
            ("locked", frame(.lockedOut, locked: 30)),
            ("challenge", frame(.challenge, challenge: "4821")),
            ("help", frame(.help)),
        ]
    }
}
