import AsyncHTTPClient
import Foundation
import KioskPadAccess
import NIOCore

extension HTTPVerifier {
    /// Why no address of the site answered a request.
    public struct NoAddressAnswered: Error, CustomStringConvertible {
        public let description: String
    }

    /// Sends `request` to the site's endpoint at `path` (``SiteAddresses/firstAnswer(_:path:client:timeout:sharing:)``,
    /// the deadline shared): the check-in and enrolment requests (`/verify` has its own
    /// loop, with retries to the same address).
    func firstAnswer(_ request: HTTPClientRequest, path: String, timeout: Duration) async throws -> HTTPClientResponse {
        try await addresses.firstAnswer(request, path: path, client: client, timeout: timeout, sharing: true).response
    }
}

extension SiteAddresses {
    /// A client for `count` addresses: with several, a refused connection must fail its try
    /// at once, so the next address is asked; the pool would otherwise retry it until the
    /// connect timeout. With one, it is retried within the deadline (a site restarting may
    /// answer in time) unless `retryRefused` is false: a door that can decide offline does so
    /// at once rather than wait out the deadline against a site that refused it.
    static func pool(_ configuration: inout HTTPClient.Configuration, addresses count: Int, retryRefused: Bool = true) {
        configuration.connectionPool.retryConnectionEstablishment = count == 1 && retryRefused
    }

    /// Tells the site how long this try waits for its answer (``AnswerWait``): the site commits
    /// nothing it decides after `deadline`, so what the door gave up on is not used or counted.
    static func tellWait(_ request: inout HTTPClientRequest, until deadline: NIODeadline) {
        let (end, start) = (deadline.uptimeNanoseconds, NIODeadline.now().uptimeNanoseconds)
        let milliseconds = end > start ? (end - start) / 1_000_000 : 0
        request.headers.replaceOrAdd(name: AnswerWait.header, value: String(min(UInt64(AnswerWait.range.upperBound), max(1, milliseconds))))
    }

    /// Sends `request` address by address in ``order()``: the first answer other than a 503
    /// while another address is left. An address that gives no answer or a 503 is marked
    /// failed; one that answers is marked answered. With `sharing`, `timeout` bounds all the
    /// tries together and a try gets its share while others are untried; without, each try
    /// has `timeout` (a replica, a batch of records: nobody waits at the door), or with
    /// `shortFirstTries` only its share while other addresses are left (a replica: a silent
    /// first address costs its share, and the last try still has all of `timeout`). `path`
    /// replaces each address's path (the check-in, enrolment beside `/verify`). Returns the
    /// response and the URL that gave it; throws ``HTTPVerifier/NoAddressAnswered`` naming
    /// what each address did, or the cancellation.
    func firstAnswer(
        _ request: HTTPClientRequest, path: String? = nil, client: HTTPClient, timeout: Duration, sharing: Bool, shortFirstTries: Bool = false
    ) async throws -> (response: HTTPClientResponse, url: String) {
        let order = order()
        let whole = TimeAmount.nanoseconds(timeout.wholeNanoseconds)
        let deadline = NIODeadline.now() + whole
        let share = TimeAmount.nanoseconds(firstTryBudget(of: timeout).wholeNanoseconds)
        var request = request
        var failures: [String] = []
        for (position, index) in order.enumerated() {
            let last = position == order.count - 1
            request.url = url(index, path: path)
            let tryDeadline = sharing ? (last ? deadline : min(deadline, .now() + share)) : .now() + (shortFirstTries && !last ? share : whole)
            if sharing { Self.tellWait(&request, until: tryDeadline) }
            do {
                let response = try await client.execute(request, deadline: tryDeadline)
                guard response.status == .serviceUnavailable else {
                    answered(index)
                    return (response, request.url)
                }
                failed(index)
                if last { return (response, request.url) }
                _ = try? await response.body.collect(upTo: 16_384)
                failures.append("\(request.url) answered 503")
            } catch {
                failed(index)
                if error is CancellationError || Task.isCancelled { throw error }
                failures.append("no answer from \(request.url): \(error)")
                if last || (sharing && NIODeadline.now() >= deadline) { break }
            }
        }
        throw HTTPVerifier.NoAddressAnswered(description: failures.joined(separator: "; "))
    }
}
