import KeypadTestSupport
import KioskPadCore
import Testing

@Suite("Challenge code before the PIN")
struct ChallengeTests {
    let clock = ManualEntryClock()

    func model() -> EntryModel {
        EntryModel(options: EntryOptions(challenge: .beforePIN), clock: clock, randomness: SeededRandomness(seed: 42))
    }

    @Test func showsAFreshCodeDrawnFromTheAlphabet() throws {
        let entry = model()
        #expect(entry.phase == .challenge)
        let code = try #require(entry.snapshot().challengeCode)
        #expect(code.count == 4)
        #expect(code.allSatisfy { $0.isNumber })
    }

    @Test func typingTheCodeBackGoesOnToPINEntry() throws {
        let entry = model()
        let code = try #require(entry.snapshot().challengeCode)
        #expect(type(code, into: entry).isEmpty)
        #expect(entry.phase == .ready)
        #expect(type("1234", into: entry).map(revealed) == ["1234"])
    }

    @Test func aMismatchShakesTheRowAndDrawsANewCode() throws {
        let entry = model()
        let code = try #require(entry.snapshot().challengeCode)
        let wrong = String(code.map { $0 == "9" ? "0" : "9" })
        type(wrong, into: entry)
        #expect(entry.phase == .challenge)
        #expect(entry.snapshot().filledCount == 0)
        var offsets: [Int] = []
        for _ in 0..<5 {
            offsets.append(entry.snapshot().shakeOffset)
            clock.advance(by: EntryModel.shakeInterval)
            entry.tick()
        }
        #expect(offsets == [-1, 1, -1, 1, 0])
        let next = try #require(entry.snapshot().challengeCode)
        // A fresh draw; 4 digits from a seeded source differ from the first here.
        #expect(next != code)
    }

    @Test func afterAnAttemptTheNextPersonGetsANewChallenge() throws {
        let entry = model()
        let code = try #require(entry.snapshot().challengeCode)
        type(code, into: entry)
        let submission = type("1234", into: entry)[0]
        entry.complete(attempt: submission.attempt, outcome: .granted())
        entry.handle(.label("#"))
        #expect(entry.phase == .challenge)
    }

    @Test func passingTheChallengeExpiresAfterInactivity() throws {
        let entry = model()
        type(try #require(entry.snapshot().challengeCode), into: entry)
        clock.advance(by: .seconds(10))
        entry.tick()
        #expect(entry.phase == .challenge)
    }

    @Test func systemRandomnessStaysInRange() {
        let randomness = SystemChallengeRandomness()
        #expect((0..<1000).allSatisfy { _ in (0..<3).contains(randomness.index(below: 3)) })
    }
}
