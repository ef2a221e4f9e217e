import Foundation

/// What an administrator (or a fire-alarm contact) has set a door to, beyond its rules:
/// `lockdown` lets only responders in; `release` holds the door unlocked.
public enum DoorMode: String, Sendable, Equatable, CaseIterable {
    case normal
    case lockdown
    case release
}

/// The site's mode and each door's own: a door's own mode, when set, is the one it follows;
/// otherwise it follows the site's. Each is kept with who set it and when, for the console.
public struct DoorModes: Sendable, Equatable {
    /// One mode as set.
    public struct Setting: Sendable, Equatable {
        public let mode: DoorMode
        /// The administrator's name, `cli:USER` or `home-assistant`.
        public let setBy: String
        public let setAt: Date

        public init(mode: DoorMode, setBy: String, setAt: Date) {
            self.mode = mode
            self.setBy = setBy
            self.setAt = setAt
        }
    }

    /// The whole site's (nil: normal).
    public var site: Setting?
    /// Doors' own, by `terminal_id`.
    public var doors: [String: Setting]

    public init(site: Setting? = nil, doors: [String: Setting] = [:]) {
        self.site = site
        self.doors = doors
    }

    /// Whether anything is set (a site of only normal doors has nothing to carry).
    public var isSet: Bool { site != nil || !doors.isEmpty }

    /// The setting `door` follows now, nil for normal.
    public func setting(at door: String) -> Setting? {
        doors[door] ?? site
    }

    /// The mode `door` is in now.
    public func mode(at door: String) -> DoorMode {
        setting(at: door)?.mode ?? .normal
    }

    /// The scope word as commands and the database write it: `site` or the door's id.
    public static let siteScope = "*"
}
