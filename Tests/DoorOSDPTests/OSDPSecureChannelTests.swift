import DoorOSDP
import Testing

/// The Secure Channel against known answers computed with an independent AES (Python's
/// `cryptography`) from the formulas of SIA OSDP v2.2 annex D, for key A1B2...8F90, RND.A
/// 01...08 and RND.B 11...18; the same code is proven against libosdp by the peer tests. Here
/// so a build for another architecture (the arm64 test bundle) checks the arithmetic too.
struct OSDPSecureChannelTests {
    static func bytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! }
    }

    func channel() throws -> OSDPSecureChannel {
        try OSDPSecureChannel(
            key: try #require(OSDPKey(hex: "a1b2c3d4e5f60718293a4b5c6d7e8f90")), serverRandom: Array(1...8), clientRandom: Array(0x11...0x18))
    }

    @Test func theHandshakesCryptogramsAndInitialMACAreTheSpecifications() throws {
        var channel = try channel()
        #expect(try channel.expectedClientCryptogram() == Self.bytes("95f19d5f7a4c7a80e7be63ccc2583d47"))
        #expect(try channel.serverCryptogram() == Self.bytes("00e88f7148f6b583b2ff66eb726545b2"))
        #expect(try !channel.acceptInitialMAC(Self.bytes("62c22dc37cf7febc43916107c59b49e5")))
        #expect(try channel.acceptInitialMAC(Self.bytes("62c22dc37cf7febc43916107c59b49e4")))
    }

    @Test func commandsAreMACedAndEncryptedAndRepliesCheckedAndDecrypted() throws {
        var channel = try channel()
        _ = try channel.acceptInitialMAC(Self.bytes("62c22dc37cf7febc43916107c59b49e4"))
        let led: [UInt8] = [0, 0, 2, 20, 0, 2, 0, 20, 0, 0, 0, 0, 0, 0]
        #expect(try channel.encryptCommandData(led) == Self.bytes("d852ffd20cf515bfe039afc3ff90e96c"))
        let poll = OSDPPacket(address: 1, sequence: 1, security: (0x15, []), code: OSDPCommand.poll.rawValue)
        #expect(poll.bytesBeforeMAC(macLength: 4) == Self.bytes("53010e000d021560"))
        #expect(try channel.signCommand(poll.bytesBeforeMAC(macLength: 4)) == Self.bytes("6aa11581"))
        let reply = Self.bytes("53811e000d021853f05c0d80b27514306e1464b139d9fb10")
        var wrong = channel
        #expect(try !wrong.verifyReply(reply, mac: Self.bytes("3c7ec82c")))
        #expect(try channel.verifyReply(reply, mac: Self.bytes("3c7ec82b")))
        #expect(try channel.decryptReplyData(Array(reply.suffix(16))) == [0, 2, 0x31, 0x32])
    }
}
