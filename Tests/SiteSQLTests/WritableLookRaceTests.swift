import Foundation
import Testing

@testable import SitePostgres

/// A look for the writable server ends at the first yes, when all said no, or at its time
/// limit, however long one server's query goes on (a query PostgresNIO does not end on
/// cancellation once kept an instance from ever looking again after a failover).
@Suite("Looking for the writable server")
struct WritableLookRaceTests {
    /// A server whose query does not end within the test (the race cancels nothing).
    static func hung() async -> Bool {
        try? await Task.sleep(for: .seconds(3600))
        return true
    }

    @Test func aServerThatSaysYesIsTakenWhileAnotherHangs() async {
        let started = ContinuousClock.now
        let found = await WritableLookRace.first(of: 2, within: .seconds(30)) { index in
            index == 0 ? await Self.hung() : true
        }
        #expect(found == 1)
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func aHungServerEndsTheLookAtItsLimitWithNoAnswer() async {
        let started = ContinuousClock.now
        let found = await WritableLookRace.first(of: 2, within: .milliseconds(300)) { index in
            index == 0 ? await Self.hung() : false
        }
        #expect(found == nil)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
    }

    @Test func allSayingNoEndsTheLookBeforeItsLimit() async {
        let started = ContinuousClock.now
        let found = await WritableLookRace.first(of: 3, within: .seconds(30)) { _ in false }
        #expect(found == nil)
        #expect(ContinuousClock.now - started < .seconds(10))
    }
}
