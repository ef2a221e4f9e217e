import KioskPadCore

/// The seam between the frame composer and a physical or virtual display.
/// A driver shows whole frames; it may diff internally. Errors are reported, never fatal
/// to the door: the controller logs them and carries on.
public protocol DisplayDriver: Sendable {
    /// The size frames for this display must have.
    var geometry: DisplayGeometry { get }
    func show(_ frame: Frame) async throws
    /// Leaves the display in a sane state (cursor shown, colours reset).
    func close() async
}
