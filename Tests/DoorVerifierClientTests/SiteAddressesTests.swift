import DoorVerifierClient
import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Logging
import SiteCore
import Synchronization
import Testing
import VerifierTestSupport

/// The order a door asks its site's addresses in: as configured, a failed one behind the
/// others for the health memory, then first again.
@Suite("Site addresses: order and health memory")
struct SiteAddressesOrderTests {
    final class Clock: Sendable {
        let instant = Mutex(ContinuousClock.now)
        func advance(_ by: Duration) { instant.withLock { $0 += by } }
        var now: @Sendable () -> ContinuousClock.Instant { { self.instant.withLock { $0 } } }
    }

    @Test func aFailedAddressWaitsBehindTheOthersForTheMemory() {
        let clock = Clock()
        let addresses = SiteAddresses(["https://a/verify", "https://b/verify", "https://c/verify"], memory: .seconds(30), now: clock.now)
        #expect(addresses.order() == [0, 1, 2])
        addresses.failed(0)
        #expect(addresses.order() == [1, 2, 0])
        clock.advance(.seconds(5))
        addresses.failed(1)
        // Both failed: the one that failed longest ago is tried first of the two.
        #expect(addresses.order() == [2, 0, 1])
        clock.advance(.seconds(26))
        #expect(addresses.order() == [0, 2, 1])
        addresses.answered(1)
        #expect(addresses.order() == [0, 1, 2])
    }

    @Test func otherEndpointsKeepTheAddressAndTakeTheirPath() {
        let addresses = SiteAddresses(["https://site-b.example:8443/verify?x=1"])
        #expect(addresses.url(0) == "https://site-b.example:8443/verify?x=1")
        #expect(addresses.url(0, path: "/v1/credentials") == "https://site-b.example:8443/v1/credentials")
        #expect(addresses.firstTryBudget(of: .seconds(3)) == .seconds(3))
        #expect(SiteAddresses(["https://a/verify", "https://b/verify"]).firstTryBudget(of: .seconds(3)) == .milliseconds(1500))
    }
}

/// The `/verify` client, the events poster and the check-in with two addresses against real
/// loopback servers: a refused, a silent and a 503 first address leave the attempt to the
/// second within its deadline; an answer that is not a decision is never sent on.
@Suite("HTTP clients with several site addresses", .serialized, .heavy)
struct SiteAddressesClientTests {
    let secret = WebhookSecret.generate()

    func reference() async throws -> ReferenceVerifier {
        let hash = try PINHash.make(pin: SecretDigits(ascii: "4826")!, iterations: 1_000)
        return try await ReferenceVerifier.overNewStore(
            settings: .init(secret: secret, unlockSeconds: 6), users: try UsersFile(parsing: "carol:\(hash)\n", source: "users"))
    }

    func client(_ ports: [Int], deadline: Duration = .seconds(3)) throws -> HTTPVerifier {
        let urls = ports.map { "http://127.0.0.1:\($0)/verify" }
        return try HTTPVerifier(settings: .init(url: urls[0], deadline: deadline, secret: secret, otherURLs: Array(urls.dropFirst())))
    }

    @Test func aRefusedFirstAddressIsPassedOverAndRemembered() async throws {
        let closed = try ClosedPort()
        try await withReferenceServer(try await reference()) { port in
            let verifier = try client([closed.port, port])
            #expect(await verifier.verify(attempt("4826")) == .granted(message: nil, unlockSeconds: 6, user: "carol"))
            #expect(verifier.addresses.order() == [1, 0])
            #expect(await verifier.verify(attempt("4827")) == .denied(message: nil))
            await verifier.shutdown()
        }
    }

    @Test func aSilentFirstAddressGetsOnlyItsShareOfTheDeadline() async throws {
        let silent = try RecordingHTTPServer(.slow(seconds: 5, body: "{\"decision\":\"granted\"}"))
        defer { silent.stop() }
        try await withReferenceServer(try await reference()) { port in
            let verifier = try client([silent.port, port], deadline: .seconds(2))
            // Half of 2 s at the silent one, then the reference server decides: a grant, not "unavailable".
            #expect(await verifier.verify(attempt("4826")) == .granted(message: nil, unlockSeconds: 6, user: "carol"))
            #expect(verifier.addresses.order() == [1, 0])
            await verifier.shutdown()
        }
    }

    @Test func aFirstInstanceThatCannotDecideSendsTheAttemptOn() async throws {
        let busy = try RecordingHTTPServer(.respond(status: 503, body: "{\"error\":\"verifier unavailable\"}"))
        defer { busy.stop() }
        try await withReferenceServer(try await reference()) { port in
            let verifier = try client([busy.port, port])
            #expect(await verifier.verify(attempt("4826")) == .granted(message: nil, unlockSeconds: 6, user: "carol"))
            #expect(busy.requests.count == 1)
            await verifier.shutdown()
        }
    }

    @Test func anAnswerThatIsNotADecisionIsNeverSentOn() async throws {
        let refusing = try RecordingHTTPServer(.respond(status: 401, body: "{\"error\":\"bad signature\"}"))
        let second = try RecordingHTTPServer(.respond(status: 200, body: "{\"decision\":\"granted\",\"unlock_seconds\":5}"))
        defer {
            refusing.stop()
            second.stop()
        }
        let verifier = try client([refusing.port, second.port])
        #expect(await verifier.answer(attempt("4826")) == .broken("status 401"))
        #expect(second.requests.isEmpty)
        // With every address unable to decide, the attempt is unavailable (the door stays shut).
        let down = try client([try ClosedPort().port, try ClosedPort().port], deadline: .milliseconds(600))
        #expect(await down.verify(attempt("4826")) == .unavailable)
        await verifier.shutdown()
        await down.shutdown()
    }

    /// A silent first instance that did receive the attempt: the retry at the second is refused
    /// as a replay (409). The door got no answer, so it is unreachable (a replica may decide).
    @Test func aReplayRefusalOfARetryIsNoAnswer() async throws {
        let silent = try RecordingHTTPServer(.slow(seconds: 5, body: "{\"decision\":\"granted\"}"))
        let replayed = try RecordingHTTPServer(.respond(status: 409, body: "{\"error\":\"webhook-id was already used (replay)\"}"))
        defer {
            silent.stop()
            replayed.stop()
        }
        let verifier = try client([silent.port, replayed.port], deadline: .seconds(2))
        guard case .unreachable = await verifier.answer(attempt("4826")) else {
            Issue.record("a 409 to a retry must be unreachable")
            return
        }
        // A 409 to a first try is an answer that is not a decision, as before.
        let direct = try client([replayed.port])
        #expect(await direct.answer(attempt("4826")) == .broken("status 409"))
        await verifier.shutdown()
        await direct.shutdown()
    }

    @Test func eventsGoToTheFirstAddressThatTakesThemWithOneID() async throws {
        let busy = try RecordingHTTPServer(.respond(status: 503, body: "{}"))
        let taking = try RecordingHTTPServer(.respond(status: 200, body: "{}"))
        let closed = try ClosedPort()
        defer {
            busy.stop()
            taking.stop()
        }
        let poster = try SignedPoster(
            urls: ["http://127.0.0.1:\(closed.port)/v1/events", "http://127.0.0.1:\(busy.port)/v1/events", "http://127.0.0.1:\(taking.port)/v1/events"],
            terminalID: "door-1", secret: secret, logger: Logger(label: "test"))
        #expect(await poster.post(body: Array("{\"records\":[]}".utf8), id: "batch-1") == .delivered)
        #expect(busy.requests.first?.headers["webhook-id"] == "batch-1" && taking.requests.first?.headers["webhook-id"] == "batch-1")
        #expect(poster.addresses.order() == [2, 0, 1])
        await poster.shutdown()
    }

    /// An adopted door whose events are signed with its own secret: when the site rotates it,
    /// the poster signs with the next one; a poster with another secret keeps its own.
    @Test func thePosterFollowsARotationOfTheSecretItSignsWith() async throws {
        let taking = try RecordingHTTPServer(.respond(status: 200, body: "{}"))
        defer { taking.stop() }
        let next = WebhookSecret.generate()
        let poster = try SignedPoster(
            urls: ["http://127.0.0.1:\(taking.port)/v1/events"], terminalID: "door-1", secret: secret, logger: Logger(label: "test"))
        #expect(!poster.replaceSecret(WebhookSecret.generate(), with: next), "not the secret it signs with")
        #expect(await poster.post(body: Array("{}".utf8), id: "batch-1") == .delivered)
        #expect(poster.replaceSecret(secret, with: next))
        #expect(await poster.post(body: Array("{}".utf8), id: "batch-2") == .delivered)
        let signed = taking.requests.map { request in
            [secret, next].map { key in
                WebhookSignature.verify(
                    id: request.headers["webhook-id"], timestamp: request.headers["webhook-timestamp"], signature: request.headers["webhook-signature"],
                    body: request.body, secret: key) == nil
            }
        }
        #expect(signed == [[true, false], [false, true]], "\(signed)")
        await poster.shutdown()
    }

    /// A replica fetch gives a silent first address only its share of the timeout (2 s of 4),
    /// then asks the next. The first answers after 3 s: within the whole timeout, so a fetch
    /// that waited all of it there would take that answer and never ask the second.
    @Test func aReplicaFetchGivesASilentFirstAddressOnlyItsShare() async throws {
        let silent = try RecordingHTTPServer(.slow(seconds: 3, body: "{}"))
        let second = try RecordingHTTPServer(.respond(status: 200, body: "{}"))
        defer {
            silent.stop()
            second.stop()
        }
        let urls = [silent.port, second.port].map { "http://127.0.0.1:\($0)/v1/credentials" }
        let sync = try ReplicaSyncClient(
            urls: urls, terminalID: "door-1", secret: secret, settings: .init(url: "http://127.0.0.1:\(second.port)/verify", secret: secret),
            timeout: .seconds(4))
        _ = try? await sync.fetch(have: 0)
        #expect(silent.requests.count == 1 && second.requests.count == 1, "asked the silent one, then the next")
        await sync.shutdown()
    }

    @Test func aCheckInReachesTheSecondInstance() async throws {
        let closed = try ClosedPort()
        let answering = try RecordingHTTPServer(.respond(status: 200, body: "{\"check_in_s\":60}"))
        defer { answering.stop() }
        let verifier = try client([closed.port, answering.port])
        let answer = try await verifier.checkIn(terminalID: "door-1")
        #expect(answer.interval == .seconds(60))
        #expect(answering.requests.count == 1)
        await verifier.shutdown()
    }
}
