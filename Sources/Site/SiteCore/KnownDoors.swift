import Foundation
import KioskPadAccess

/// The doors a site has heard of: those that forwarded records (events, status heartbeats) and
/// those given a secret of their own. A setting may name a door before it is installed, so
/// an unknown id is allowed; every front end says so (``ChangeNote``), which catches a mistyped one.
public enum KnownDoors {
    /// Those of `doors` (in their order, once each) that the site has not heard of.
    public static func unknown(_ doors: [String], store: any VerifierStore, administration: any VerifierAdministration) async throws -> [String] {
        var seen = Set<String>()
        let wanted = doors.filter { seen.insert($0).inserted }
        guard !wanted.isEmpty else { return [] }
        let known = Set(try await administration.doors().map(\.terminalID)).union(try await reported(store: store))
        return wanted.filter { !known.contains($0) }
    }

    /// Whether `door` has forwarded records (events, status heartbeats) to this site.
    public static func hasReported(_ door: String, store: any VerifierStore) async throws -> Bool {
        try await reported(store: store).contains(door)
    }

    /// The doors that forwarded records to this site.
    static func reported(store: any VerifierStore) async throws -> Set<String> {
        Set(try await store.recentEvents(perTerminal: 1).map(\.terminal))
    }

    /// A note for each of `doors` the site has not heard of (``ChangeNote/unknownDoor(_:)``).
    public static func notes(naming doors: [String], store: any VerifierStore, administration: any VerifierAdministration) async throws
        -> [ChangeNote]
    {
        try await unknown(doors, store: store, administration: administration).map(ChangeNote.unknownDoor)
    }
}
