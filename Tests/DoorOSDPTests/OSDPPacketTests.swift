import DoorOSDP
import Testing

/// The wire format: the CRC and checksum, messages out and back, and reading messages out of
/// a byte stream that splits, joins and corrupts them.
struct OSDPPacketTests {
    @Test func theCRCIsCRC16WithOSDPsInitialValue() {
        // CRC-16/AUG-CCITT's check value: polynomial 0x1021, initial 0x1D0F.
        #expect(OSDPCheck.crc16(Array("123456789".utf8)) == 0xE5CC)
        #expect(OSDPCheck.checksum([0x53, 0x01, 0x07, 0x00, 0x00, 0x60]) &+ [0x53, 0x01, 0x07, 0x00, 0x00, 0x60].reduce(0, &+) == 0)
    }

    @Test func aPollIsEncodedAsTheSpecificationShows() {
        // osdp_POLL to address 1, sequence 1, with CRC: 53 01 08 00 05 60 + CRC (LSB first).
        let bytes = OSDPPacket(address: 1, sequence: 1, code: OSDPCommand.poll.rawValue).encoded()
        #expect(Array(bytes.prefix(6)) == [0x53, 0x01, 0x08, 0x00, 0x05, 0x60])
        let crc = OSDPCheck.crc16(bytes.prefix(6))
        #expect(Array(bytes.suffix(2)) == [UInt8(crc & 0xFF), UInt8(crc >> 8)])
    }

    @Test(arguments: [true, false])
    func messagesReadBackAsSentWhateverTheyAreSplitInto(usesCRC: Bool) throws {
        let packets = [
            OSDPPacket(address: 5, isReply: true, sequence: 2, usesCRC: usesCRC, code: OSDPReply.keypad.rawValue, data: [0, 3, 0x31, 0x32, 0x0D]),
            OSDPPacket(address: 5, isReply: true, sequence: 3, usesCRC: usesCRC, security: (0x16, []), code: OSDPReply.ack.rawValue, mac: [1, 2, 3, 4]),
            OSDPPacket(address: 9, sequence: 0, usesCRC: usesCRC, security: (0x11, [1]), code: OSDPCommand.challenge.rawValue, data: Array(0..<8)),
        ]
        let stream = packets.flatMap { [OSDPPacket.mark] + $0.encoded() }
        for chunk in [1, 3, 7, stream.count] {
            var reader = OSDPPacketReader()
            var read: [OSDPPacket] = []
            for start in stride(from: 0, to: stream.count, by: chunk) {
                reader.append(stream[start..<min(stream.count, start + chunk)])
                while let result = reader.next() { read.append(try result.get().packet) }
            }
            #expect(read == packets)
        }
    }

    @Test func aCorruptedMessageIsDroppedAndTheNextOneStillReads() throws {
        var first = OSDPPacket(address: 1, isReply: true, sequence: 1, code: OSDPReply.keypad.rawValue, data: [0, 1, 0x35]).encoded()
        first[7] ^= 0x10
        let second = OSDPPacket(address: 1, isReply: true, sequence: 2, code: OSDPReply.ack.rawValue)
        var reader = OSDPPacketReader()
        reader.append(first + second.encoded())
        var errors: [OSDPFrameError] = []
        var packets: [OSDPPacket] = []
        while let result = reader.next() {
            switch result {
            case .success(let received): packets.append(received.packet)
            case .failure(let error): errors.append(error)
            }
        }
        #expect(packets == [second])
        // The rest of the broken message is read as noise or as messages that fail their checks.
        #expect(errors.first == .check)
    }

    @Test func impossibleLengthsAndSecurityBlocksAreDropped() {
        var reader = OSDPPacketReader()
        reader.append([0x53, 0x01, 0x02, 0x00, 0x04])  // shorter than any message
        #expect(reader.next().map { if case .failure(.length) = $0 { true } else { false } } == true)
        var long = OSDPPacketReader()
        long.append([0x53, 0x01, 0xFF, 0xFF, 0x04])  // longer than the longest accepted
        #expect(long.next().map { if case .failure(.length) = $0 { true } else { false } } == true)
        // A security block whose length runs past the message.
        var block = [UInt8]([0x53, 0x81, 0x00, 0x00, 0x0C, 0x20, 0x16, 0x40])
        block[2] = UInt8(block.count + 2)
        let crc = OSDPCheck.crc16(block)
        var bad = OSDPPacketReader()
        bad.append(block + [UInt8(crc & 0xFF), UInt8(crc >> 8)])
        #expect(bad.next().map { if case .failure(.securityBlock) = $0 { true } else { false } } == true)
    }
}
