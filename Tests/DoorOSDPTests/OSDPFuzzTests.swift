import DoorOSDP
import Foundation
import Testing

/// Mutated and random bytes through the message reader and a reader's session: nothing
/// crashes, every message that reads is one that was sent whole, and no key comes from a
/// broken one. `KIOSKPAD_OSDP_FUZZ_ITERATIONS` runs longer (the default keeps `swift test` short).
struct OSDPFuzzTests {
    /// SplitMix64: the same sequence for the same seed, so a failure can be run again.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }

    static let iterations = ProcessInfo.processInfo.environment["KIOSKPAD_OSDP_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 20_000

    @Test func mutatedMessagesNeverTypeAKeyNorCrash() throws {
        var random = SeededGenerator(state: 0x05D9)
        let keypad = OSDPPacket(address: 1, isReply: true, sequence: 3, code: OSDPReply.keypad.rawValue, data: [0, 1, 0x39])
        let templates: [[UInt8]] = [
            keypad.encoded(),
            OSDPPacket(address: 1, isReply: true, sequence: 3, usesCRC: false, code: OSDPReply.keypad.rawValue, data: [0, 1, 0x39]).encoded(),
            OSDPPacket(
                address: 1, isReply: true, sequence: 3, security: (0x18, []), code: OSDPReply.keypad.rawValue, data: Array(repeating: 7, count: 16),
                mac: [1, 2, 3, 4]
            ).encoded(),
            OSDPPacket(address: 1, isReply: true, sequence: 3, code: OSDPReply.rawCard.rawValue, data: [0, 1, 26, 0, 1, 2, 3, 0x40]).encoded(),
        ]
        let trailer = OSDPPacket(address: 1, isReply: true, sequence: 3, code: OSDPReply.ack.rawValue).encoded()
        // A reader in the clear, online after osdp_ID (0), osdp_CAP (1) and osdp_LSTAT (2).
        var online = OSDPReaderLink(address: 1, key: nil)
        for code in [OSDPReply.id, .capabilities, .localStatus] {
            var sent = OSDPPacketReader()
            sent.append(try online.message(at: .zero))
            let message = sent.next()
            let sequence = try #require(message).get().packet.sequence
            var reply = OSDPPacketReader()
            reply.append(OSDPPacket(address: 1, isReply: true, sequence: sequence, code: code.rawValue, data: code == .localStatus ? [0, 0] : []).encoded())
            let answer = reply.next()
            _ = try online.handle(try #require(answer).get(), at: .zero)
        }
        #expect(online.isOnline)
        var parsed = 0
        var dropped = 0
        var unrecovered = 0
        var brokenKeys = 0
        var wholeKeys = 0
        for _ in 0..<Self.iterations {
            var bytes = templates.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<6, using: &random) {
                case 0: bytes[index] ^= 1 << UInt8.random(in: 0..<8, using: &random)
                case 1: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
                case 2 where bytes.count > 1: bytes.remove(at: index)
                case 3: bytes[min(3, bytes.count - 1)] = UInt8.random(in: 0...255, using: &random)
                case 4: bytes = Array(bytes.prefix(index))
                default: bytes[index] = UInt8.random(in: 0...255, using: &random)
                }
                if bytes.isEmpty { bytes = [0x53] }
            }
            if Int.random(in: 0..<10, using: &random) == 0 {
                bytes = (0..<Int.random(in: 1...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            }
            var reader = OSDPPacketReader()
            var link = online
            _ = try link.message(at: .zero)  // a poll, sequence 3, waiting for its reply
            var trailerRead = false
            let stream = bytes + trailer
            var offset = 0
            while offset < stream.count {
                let end = min(stream.count, offset + Int.random(in: 1...16, using: &random))
                reader.append(stream[offset..<end])
                offset = end
                while let result = reader.next() {
                    switch result {
                    case .failure:
                        dropped += 1
                    case .success(let received):
                        parsed += 1
                        trailerRead = received.packet.code == OSDPReply.ack.rawValue
                        #expect(received.packet.encoded().count <= OSDPPacket.maximumLength)
                        let events = (try? link.handle(received, at: .zero)) ?? []
                        let typed = events.contains { if case .keys = $0 { true } else { false } }
                        if typed, !templates.contains(received.packet.encoded()) { brokenKeys += 1 }
                        if typed { wholeKeys += 1 }
                    }
                }
            }
            if !trailerRead {
                // A length the damage made too long holds the reader until the reply times out;
                // the bus then starts afresh, and the next reply must read.
                reader.reset()
                reader.append(trailer)
                if case .success = reader.next() {} else { unrecovered += 1 }
            }
        }
        #expect(brokenKeys == 0)
        #expect(unrecovered == 0)
        #expect(dropped > 0)
        print(
            "OSDP fuzz: \(Self.iterations) inputs, \(parsed) messages read, \(dropped) dropped, \(wholeKeys) unbroken keypad replies typed, \(brokenKeys) broken"
        )
    }
}
