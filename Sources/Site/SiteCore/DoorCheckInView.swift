import Foundation

/// All a check-in needs from the store, read in one statement before its signature is
/// checked (``DoorCheckIn``): the door's key, the replica signing keys, the settings version
/// and the site's and the door's settings, what the door last reported, and whether a door
/// without a secret of its own has reported here. A door that reports what it reported
/// before costs the site this one read and no write.
public struct DoorCheckInView: Sendable {
    /// The key the door signs with (its own, the site secret, or retired).
    public var key: DoorKey
    /// The replica signing keys as stored (nil on a database that never made one).
    public var signingKey: [UInt8]?
    public var nextSigningKey: [UInt8]?
    /// The settings version now.
    public var settingsVersion: Int64
    /// The site's and the door's own settings, as stored (nil: none).
    public var siteSettings: DoorSettings
    public var doorSettings: DoorSettings
    /// What the door said at its last check-in (nil: it never checked in).
    public var reported: DoorSettingsState?
    /// Whether the door forwarded records to this site (asked of a door signing with the site secret).
    public var hasForwarded: Bool
    /// Set by the gate when this request, signed with the next secret, ended the rotation.
    public var rotationFinished = false

    public init(
        key: DoorKey, signingKey: [UInt8]?, nextSigningKey: [UInt8]?, settingsVersion: Int64, siteSettings: DoorSettings,
        doorSettings: DoorSettings, reported: DoorSettingsState?, hasForwarded: Bool
    ) {
        self.key = key
        self.signingKey = signingKey
        self.nextSigningKey = nextSigningKey
        self.settingsVersion = settingsVersion
        self.siteSettings = siteSettings
        self.doorSettings = doorSettings
        self.reported = reported
        self.hasForwarded = hasForwarded
    }

    /// The door's settings: the site's with its own on top.
    public var effectiveSettings: DoorSettings { siteSettings.overlaid(by: doorSettings) }
}
