import KioskPadAccess
import KioskPadCore
import Testing

/// Replica tags: keyed, apart for PINs and cards, and cut to the bits a door's size needs.
@Suite("Replica tag key")
struct ReplicaTagKeyTests {
    @Test func tagsDependOnTheKeyAndTheKind() {
        let one = ReplicaTagKey(raw: Array(repeating: 1, count: 32))
        let two = ReplicaTagKey(raw: Array(repeating: 2, count: 32))
        let pin = SecretDigits(ascii: "4821")!
        #expect(one.tag(pin, kind: .pin).count == 32 && one.tag(pin, kind: .pin) == one.tag(SecretDigits(ascii: "4821")!, kind: .pin))
        #expect(one.tag(pin, kind: .pin) != two.tag(pin, kind: .pin))
        #expect(one.tag(pin, kind: .pin) != one.tag(pin, kind: .card))
        #expect(one.lookup(pin, kind: .pin, bits: 8).tag == "replica0." + String(one.tag(pin, kind: .pin).prefix(2)))
    }

    @Test func cutKeepsTheFirstBitsAndTheDoorsSizeSetsHowMany() {
        #expect(ReplicaTagKey.cut("ffffffff", bits: 6) == "fc")
        #expect(ReplicaTagKey.cut("a7c3", bits: 8) == "a7")
        #expect(ReplicaTagKey.cut("a7c3", bits: 9) == "a78")
        #expect([0, 1, 2, 16, 17, 10_000].map(ReplicaTagKey.bits(forEntries:)) == [4, 4, 5, 8, 9, 18])
    }
}
