import AsyncHTTPClient
import Foundation
import NIOCore

extension HTTPVerifier {
    /// Why no address of the site answered a request.
    public struct NoAddressAnswered: Error, CustomStringConvertible {
        public let description: String
    }

    /// Sends `request` to the site's endpoint at `path`, address by address in
    /// ``SiteAddresses`` order, within `timeout` in all: the first answer other than a 503
    /// while another address is untried. An address that gives no answer or a 503 is marked
    /// failed; one that answers is marked answered. Used by the check-in and enrolment
    /// requests (`/verify` has its own loop, with retries to the same address).
    func firstAnswer(_ request: HTTPClientRequest, path: String, timeout: Duration) async throws -> HTTPClientResponse {
        let order = addresses.order()
        let deadline = NIODeadline.now() + .nanoseconds(timeout.wholeNanoseconds)
        let share = TimeAmount.nanoseconds(addresses.firstTryBudget(of: timeout).wholeNanoseconds)
        var request = request
        var failures: [String] = []
        for (position, index) in order.enumerated() {
            let last = position == order.count - 1
            request.url = addresses.url(index, path: path)
            do {
                let response = try await client.execute(request, deadline: last ? deadline : min(deadline, .now() + share), logger: logger)
                if response.status == .serviceUnavailable, !last {
                    addresses.failed(index)
                    _ = try? await response.body.collect(upTo: 16_384)
                    failures.append("\(request.url): 503")
                    continue
                }
                if response.status == .serviceUnavailable { addresses.failed(index) } else { addresses.answered(index) }
                return response
            } catch {
                addresses.failed(index)
                if error is CancellationError || Task.isCancelled { throw error }
                failures.append("\(request.url): \(error)")
                if last || NIODeadline.now() >= deadline { break }
            }
        }
        throw NoAddressAnswered(description: "no answer from the site: " + failures.joined(separator: "; "))
    }
}
