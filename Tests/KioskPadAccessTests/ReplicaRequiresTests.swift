import Foundation
import KioskPadAccess
import Testing

/// A replica naming rules this door does not apply is refused whole, so an offline door never
/// decides by fewer rules than the site server (holidays and lockdown are applied; a rule
/// a newer site adds is not).
struct ReplicaRequiresTests {
    func payload(requires: String?) -> [UInt8] {
        let extra = requires.map { #","requires":\#($0)"# } ?? ""
        return Array(
            (#"{"kind":"replica","terminal_id":"front","version":3,"issued_at":"2026-11-27T10:00:00.000Z","schedules":{},"rules":{},"entries":[]"#
                + extra + "}").utf8)
    }

    @Test func aReplicaWithoutRequiresOrWithAnEmptyListReads() throws {
        #expect(try ReplicaMessage(decoding: payload(requires: nil)).version == 3)
        #expect(try ReplicaMessage(decoding: payload(requires: "[]")).version == 3)
        #expect(try ReplicaMessage(decoding: payload(requires: #"["holidays","lockdown"]"#)).version == 3)
    }

    @Test func aReplicaRequiringARuleThisDoorDoesNotApplyIsRefusedNamingIt() {
        #expect(
            throws: ReplicaError(
                "the replica requires 'second_factor', rules this version of kioskpad does not apply; update the door (it will not decide offline by fewer rules than the site)"
            )
        ) {
            try ReplicaMessage(decoding: payload(requires: #"["holidays","second_factor"]"#))
        }
        #expect(throws: ReplicaError("requires must be a list of rule names")) {
            try ReplicaMessage(decoding: payload(requires: #""holidays""#))
        }
    }
}
