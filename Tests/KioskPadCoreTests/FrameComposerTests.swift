import KioskPadCore
import Testing

@Suite("Frame composer")
struct FrameComposerTests {
    @Test(arguments: [DisplayGeometry.lcd1602, .lcd2004], [4, 6, 12])
    func everyRowHasExactlyTheDisplayWidthAndSlotsAreNeverTruncated(geometry: DisplayGeometry, slots: Int) {
        let composer = FrameComposer(geometry: geometry)
        let snapshot = EntrySnapshot(phase: .entering, mode: .pin, slotCount: slots, filledCount: 3)
        let frame = composer.compose(snapshot)
        #expect(frame.rows.count == geometry.rows)
        #expect(frame.rows.allSatisfy { $0.count == geometry.columns })
        let slotRow = frame.rows[geometry.rows == 2 ? 1 : 2]
        let cells = slotRow.filter { $0 == "*" || $0 == "_" }
        #expect(cells.count == slots)
        #expect(cells == String(repeating: "*", count: 3) + String(repeating: "_", count: slots - 3))
    }

    @Test func slotsKeepSeparatorsWhenTheyFit() {
        let frame = FrameComposer(geometry: .lcd1602)
            .compose(EntrySnapshot(phase: .entering, mode: .pin, slotCount: 4, filledCount: 2))
        #expect(frame.rows == ["   Enter PIN    ", "    * * _ _     "])
    }

    @Test func theTamperAlertReplacesThePromptButNotAResult() {
        let composer = FrameComposer(geometry: .lcd1602)
        let entering = composer.compose(EntrySnapshot(phase: .entering, mode: .pin, slotCount: 4, filledCount: 2), alert: "Tamper alarm")
        #expect(entering.rows == ["  Tamper alarm  ", "    * * _ _     "] && entering.style == .warning)
        let granted = composer.compose(EntrySnapshot(phase: .result(.granted), mode: .pin, slotCount: 4, filledCount: 0), alert: "Tamper alarm")
        #expect(granted.rows[0] == " Access granted " && granted.style == .granted)
    }

    @Test func twelveSlotsOnSixteenColumnsDropSeparators() {
        let frame = FrameComposer(geometry: .lcd1602)
            .compose(EntrySnapshot(phase: .entering, mode: .pin, slotCount: 12, filledCount: 5))
        #expect(frame.rows[1] == "  *****_______  ")
    }

    @Test func slotsWiderThanTheDisplayScrollToKeepTheCursorVisible() {
        let cells = Array("12345678____")
        #expect(SlotRow.layout(cells: cells, cursor: 8, columns: 8) == "2345678_")
        #expect(SlotRow.layout(cells: cells, cursor: 0, columns: 8) == "12345678")
        #expect(SlotRow.layout(cells: cells, cursor: 11, columns: 8) == "5678____")
    }

    @Test func codeModeShowsDigits() {
        let frame = FrameComposer(geometry: .lcd1602)
            .compose(EntrySnapshot(phase: .entering, mode: .code, slotCount: 6, filledCount: 2, visibleDigits: [4, 2]))
        #expect(frame.rows[0].contains("Enter code"))
        #expect(frame.rows[1].contains("4 2 _ _ _ _"))
    }

    @Test func fourRowLayoutHasTitlePromptSlotsAndHint() {
        let frame = FrameComposer(geometry: .lcd2004)
            .compose(EntrySnapshot(phase: .ready, mode: .pin, slotCount: 4))
        #expect(frame.text == "      KioskPad\n     Enter PIN\n      _ _ _ _\n   #=OK *=Delete")
    }

    @Test func statusScreensUseTheContractTexts() {
        let composer = FrameComposer(geometry: .lcd1602)
        func status(_ phase: EntryPhase, locked: Int = 0) -> String {
            composer.compose(EntrySnapshot(phase: phase, mode: .pin, slotCount: 4, lockSecondsRemaining: locked))
                .rows[0].trimmingSpaces
        }
        func screen(_ phase: EntryPhase) -> [String] {
            composer.compose(EntrySnapshot(phase: phase, mode: .pin, slotCount: 4)).rows.map(\.trimmingSpaces)
        }
        #expect(status(.verifying).hasPrefix("Verifying..."))
        #expect(status(.result(.granted)) == "Access granted")
        #expect(status(.result(.denied)) == "Access denied")
        // 20 characters on a 16-column LCD: wrapped onto the free second row, not clipped.
        #expect(screen(.result(.unavailable)) == ["Verifier", "unavailable"])
        #expect(
            FrameComposer(geometry: .lcd2004).compose(EntrySnapshot(phase: .result(.unavailable), mode: .pin, slotCount: 4))
                .rows[1].trimmingSpaces == "Verifier unavailable")
        #expect(status(.lockedOut, locked: 30) == "Locked 30s")
    }

    @Test func spinnerTurnsWhileVerifying() {
        let composer = FrameComposer(geometry: .lcd1602)
        let spins = (0..<4).map { step in
            composer.compose(EntrySnapshot(phase: .verifying, mode: .pin, slotCount: 4, spinnerStep: step)).rows[0]
        }
        #expect(Set(spins).count == 4)
    }

    @Test func verifierMessagesAreSanitisedAndClipped() {
        let frame = FrameComposer(geometry: .lcd1602).compose(
            EntrySnapshot(phase: .result(.granted), mode: .pin, slotCount: 4, message: "Hi\u{1B}[2J Ünïcode and a very long tail"))
        #expect(frame.rows[1].count == 16)
        #expect(frame.rows[1].unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) })
        #expect(frame.rows[1].hasPrefix("Hi[2J ncode and"))
    }

    @Test func challengeShowsTheCodeAndShakesTheSlotRow() {
        let composer = FrameComposer(geometry: .lcd1602)
        let still = composer.compose(EntrySnapshot(phase: .challenge, mode: .pin, slotCount: 4, challengeCode: "5308"))
        let left = composer.compose(EntrySnapshot(phase: .challenge, mode: .pin, slotCount: 4, challengeCode: "5308", shakeOffset: -1))
        let right = composer.compose(EntrySnapshot(phase: .challenge, mode: .pin, slotCount: 4, challengeCode: "5308", shakeOffset: 1))
        #expect(still.rows[0].contains("Type 5308"))
        #expect(left.rows[1] == String(still.rows[1].dropFirst()) + " ")
        #expect(right.rows[1] == " " + String(still.rows[1].dropLast()))
    }

    @Test func helpTextWrapsOverTheRows() {
        let frame = FrameComposer(geometry: .lcd1602)
            .compose(EntrySnapshot(phase: .help, mode: .pin, slotCount: 4))
        #expect(frame.rows.map(\.trimmingSpaces) == ["Forgot PIN? Ask", "reception"])
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
