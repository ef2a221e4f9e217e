import DoorController
import Foundation
import KeypadDisplay
import KeypadHAL
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Testing

/// A verifier that answers from a script and counts calls (for controller wiring tests).
final class ScriptedVerifier: Verifier, @unchecked Sendable {
    // @unchecked: `calls` is only read after run() has returned.
    let outcome: AttemptOutcome
    private(set) var calls = 0

    init(_ outcome: AttemptOutcome) {
        self.outcome = outcome
    }

    func verify(_ attempt: VerificationAttempt) async -> AttemptOutcome {
        calls += 1
        return outcome
    }
}

@Suite("Controller")
struct KioskControllerTests {
    static let users: UsersFile = {
        let hash = try! PINHash.make(pin: SecretDigits(ascii: "1234")!, iterations: 1_000)
        return UsersFile(users: [UserRecord(name: "demo", pinHash: hash)])
    }()

    func run(
        _ script: String, verifier: any Verifier = LocalVerifier(users: users), display: RecordingDisplay = RecordingDisplay(geometry: .lcd1602),
        entry: EntryOptions = EntryOptions()
    ) async -> (KioskController.Ending, [Frame]) {
        let controller = KioskController(
            entry: entry, composer: FrameComposer(geometry: display.geometry), display: display,
            verifier: verifier, source: ScriptedKeySource(text: script), terminalID: "test")
        let ending = await controller.run()
        return (ending, display.frames)
    }

    @Test func theRightPINEndsOnAccessGranted() async {
        let (ending, frames) = await run("1234")
        #expect(ending == .inputEnded)
        #expect(frames.last?.rows[0].contains("Access granted") == true)
        #expect(frames.contains { $0.rows[0].contains("Verifying...") })
        #expect(frames.allSatisfy { !$0.text.contains("1") && !$0.text.contains("2") })
    }

    @Test func aWrongPINEndsOnAccessDenied() async {
        let (_, frames) = await run("9999")
        #expect(frames.last?.rows[0].contains("Access denied") == true)
    }

    @Test func deleteAndClearEditTheEntryBeforeSubmission() async {
        var entry = EntryOptions()
        entry.bindings.clearKeys = ["C"]
        // 9 <erase> 1 2 <clear> 1 2 <erase> 2 3 4 -> 1234
        let (_, frames) = await run("9\u{7F}12C12*234", entry: entry)
        #expect(frames.last?.rows[0].contains("Access granted") == true)
        let slotRows = frames.map { $0.rows[1].filter { $0 != " " } }
        #expect(slotRows.contains("**__"))
        #expect(slotRows.contains("*___"))
    }

    @Test func scriptedKeysTypedDuringVerificationApplyAfterTheAnswer() async {
        let (_, frames) = await run("99991234")
        let results = frames.map { $0.rows[0].trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("Access") }
        #expect(results == ["Access denied", "Access granted"])
    }

    @Test func verifierUnavailableShowsAndKeepsNoCount() async {
        let verifier = ScriptedVerifier(.unavailable)
        let (_, frames) = await run("1234#1234#1234", verifier: verifier)
        #expect(verifier.calls == 3)
        #expect(frames.last?.text.contains("Verifier") == true)
        #expect(!frames.contains { $0.text.contains("Locked") })
    }

    @Test func aFailingDisplayNeverBlocksVerification() async {
        let display = RecordingDisplay(geometry: .lcd1602)
        display.setFailing(true)
        let verifier = ScriptedVerifier(.granted())
        let (ending, frames) = await run("1234", verifier: verifier, display: display)
        #expect(ending == .inputEnded)
        #expect(verifier.calls == 1)
        #expect(frames.isEmpty)
    }

    @Test func ctrlCQuits() async {
        let verifier = ScriptedVerifier(.granted())
        let (ending, _) = await run("12\u{03}34", verifier: verifier)
        #expect(ending == .quit)
        #expect(verifier.calls == 0)
    }

    @Test func partialEntryAtEndOfInputEndsWithoutSubmitting() async {
        let verifier = ScriptedVerifier(.granted())
        let (ending, frames) = await run("12", verifier: verifier)
        #expect(ending == .inputEnded)
        #expect(verifier.calls == 0)
        #expect(frames.last?.rows[1].filter { $0 != " " } == "**__")
    }
}
