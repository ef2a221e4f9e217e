import Foundation
import Synchronization

/// What became of settings the site gave an adopted door.
public enum SiteSettingsOutcome: Sendable, Equatable {
    /// Running them now (texts changed in place, or nothing the running door uses changed).
    case running(version: Int64)
    /// Stored; they take effect when the door starts again in place (``RestartRequest``).
    case restartNeeded(version: Int64)
    /// Refused by the door's config checker; the door keeps what it runs. `reason` names the key.
    case refused(version: Int64, reason: String)
}

/// Checks settings from the site (the signed payload's text) against the door's own file
/// and applies or stores them; the composition root's (DoorAssembly) knows the config.
public protocol SiteSettingsApplying: Sendable {
    /// The settings version the door runs now.
    var runningVersion: Int64 { get }
    func apply(payload: String) async -> SiteSettingsOutcome
    /// Whether the door may start again now: nobody typing, nothing shown but the prompt,
    /// the relay off.
    func idle() async -> Bool
}

/// Set when the door should start again in place once its services have stopped (settings
/// from the site that the running door cannot take in place); `kioskpad run` then executes
/// itself again, same PID.
public final class RestartRequest: Sendable {
    private let requested = Atomic<Bool>(false)

    public init() {}

    public var isRequested: Bool { requested.load(ordering: .acquiring) }

    public func request() { requested.store(true, ordering: .releasing) }
}
