import KioskPadCore
import Testing

@Suite("Identifier rule for terminal ids and user names")
struct IdentifierTests {
    @Test(arguments: ["door-1", "front.door_2", "A", String(repeating: "x", count: 64)])
    func accepted(name: String) {
        #expect(Identifier.isValid(name))
    }

    @Test(arguments: ["", "bad name", "door/1", "café", "door:1", String(repeating: "x", count: 65)])
    func refused(name: String) {
        #expect(!Identifier.isValid(name))
    }
}
