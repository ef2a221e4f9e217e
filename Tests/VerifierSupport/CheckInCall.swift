import Foundation
import SiteCore

/// A check-in the site refused: its reason.
public struct RefusedCheckIn: Error, Sendable {
    public let reason: String
}

extension DoorCheckIn {
    /// `request` through the gate and the answer, as the server runs them: the answer's JSON,
    /// or the refusal's text.
    public func call(_ request: ReferenceVerifier.Incoming) async -> Result<[String: Any], RefusedCheckIn> {
        switch await gate(request) {
        case .failure(let refused): return .failure(RefusedCheckIn(reason: refused.outcome.text))
        case .success(let admitted):
            switch await answer(admitted) {
            case .done(let json): return .success((try? JSONSerialization.jsonObject(with: Data(json))) as? [String: Any] ?? [:])
            case let other: return .failure(RefusedCheckIn(reason: other.text))
            }
        }
    }
}
