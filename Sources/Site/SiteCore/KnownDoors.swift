import Foundation
import KioskPadAccess

/// The doors a site has heard of: those that forwarded records (events, status heartbeats) and
/// those given a secret of their own. A setting may name a door before it is installed, so
/// an unknown id is allowed; the command line says so, which catches a mistyped one.
public enum KnownDoors {
    /// Those of `doors` (in their order, once each) that the site has not heard of.
    public static func unknown(_ doors: [String], store: any VerifierStore, administration: any VerifierAdministration) async throws -> [String] {
        var seen = Set<String>()
        let wanted = doors.filter { seen.insert($0).inserted }
        guard !wanted.isEmpty else { return [] }
        var known = Set(try await administration.doors().map(\.terminalID))
        for door in try await store.recentEvents(perTerminal: 1) { known.insert(door.terminal) }
        return wanted.filter { !known.contains($0) }
    }

    /// What the command line says of such a door.
    public static func note(_ door: String) -> String {
        "warning: no door '\(door)' has reported to this site yet (forwarded events or a status) or has a secret of its own; "
            + "the setting is kept and applies once a door with that terminal_id connects (check the id if that door is installed)"
    }
}
