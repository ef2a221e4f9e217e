import Foundation
import KioskPadAccess

/// The key a door's requests must be signed with, as the site keeps it (`kioskpad_doors`).
public enum DoorKey: Sendable {
    /// No secret of its own: the door signs with the site secret.
    case siteSecret
    /// Its own secret; while a rotation waits for the door, the next one (both are accepted
    /// until the door first signs with the next, which then replaces the current, or until
    /// `rotationDeadline`, after which only the next is); and once a rotation ended, the
    /// secret it replaced, for requests signed before then.
    case own(WebhookSecret, next: WebhookSecret?, previous: Replaced? = nil, rotationDeadline: Date? = nil)
    /// Retired: every request naming it is refused, whatever it is signed with.
    case retired

    /// Its own current secret, if it has one and is not retired.
    public var ownSecret: WebhookSecret? {
        if case .own(let secret, _, _, _) = self { return secret }
        return nil
    }

    /// How long a started rotation keeps the current secret good: a door that has not picked up
    /// its next secret within it (never checked in) is refused with its old one from then on,
    /// so a secret rotated because it leaked stops working even at a door that is away.
    public static let rotationWindow: TimeInterval = 7 * 86_400

    /// The secret a rotation replaced, and when. A request the door signed before then
    /// (`webhook-timestamp` not after it: one on its way, or retried, while the door switched)
    /// is still accepted for ``grace`` after it, the time a signature's timestamp is good
    /// for anyway; a request signed with it later is refused.
    public struct Replaced: Sendable {
        public let secret: WebhookSecret
        public let at: Date

        public init(secret: WebhookSecret, at: Date) {
            self.secret = secret
            self.at = at
        }

        /// As long as a signature's timestamp may be off (``WebhookSignature``'s tolerance).
        public static let grace: TimeInterval = 300

        /// Whether a request timestamped `timestamp` (Unix seconds) and checked at `now` may use it.
        public func covers(timestamp: String?, now: Date) -> Bool {
            guard let seconds = timestamp.flatMap({ Int64($0) }) else { return false }
            return Double(seconds) <= at.timeIntervalSince1970 && now.timeIntervalSince(at) < Self.grace
        }
    }
}
