import DoorOSDP
import Testing

/// A reader's session without a line: the steps of a session in the clear, retries and
/// offline, and what replies mean.
struct OSDPReaderLinkTests {
    /// The one message in `bytes`.
    func parse(_ bytes: [UInt8]) throws -> OSDPReceived {
        var reader = OSDPPacketReader()
        reader.append(bytes)
        let result = reader.next()
        return try #require(result).get()
    }

    /// Sends the link's next message and answers it with `code` and `data`.
    func exchange(_ link: inout OSDPReaderLink, at now: Duration, _ code: OSDPReply, _ data: [UInt8] = []) throws -> (OSDPPacket, [OSDPReaderEvent]) {
        let sent = try parse(try link.message(at: now)).packet
        let reply = OSDPPacket(address: sent.address, isReply: true, sequence: sent.sequence, code: code.rawValue, data: data)
        return (sent, try link.handle(try parse(reply.encoded()), at: now))
    }

    @Test func aSessionInTheClearIdentifiesThenPollsWithSequenceNumbers() throws {
        var link = OSDPReaderLink(address: 3, key: nil)
        let (id, _) = try exchange(&link, at: .zero, .id, Array(repeating: 0, count: 12))
        #expect(id.code == OSDPCommand.id.rawValue && id.sequence == 0)
        let (cap, events) = try exchange(&link, at: .milliseconds(50), .capabilities, [8, 1, 1])
        #expect(cap.code == OSDPCommand.capabilities.rawValue && cap.sequence == 1)
        #expect(events == [.online(secure: false)])
        #expect(link.hasText)
        let (status, _) = try exchange(&link, at: .milliseconds(100), .localStatus, [0, 0])
        #expect(status.code == OSDPCommand.localStatus.rawValue)
        var sequences: [UInt8] = []
        for step in 0..<4 {
            let (poll, keys) = try exchange(&link, at: .milliseconds(150 + 50 * step), .keypad, [0, 2, 0x31, 0x7F])
            #expect(poll.code == OSDPCommand.poll.rawValue)
            #expect(keys == [.keys([0x31, 0x7F])])
            sequences.append(poll.sequence)
        }
        #expect(sequences == [3, 1, 2, 3])
    }

    @Test func aMissedReplyIsAskedAgainThenTheReaderGoesOffline() throws {
        var link = OSDPReaderLink(address: 1, key: nil, offlineAfter: .seconds(8))
        _ = try exchange(&link, at: .zero, .id, [])
        _ = try exchange(&link, at: .milliseconds(50), .capabilities, [])
        let first = try link.message(at: .milliseconds(100))
        #expect(link.noReply(at: .milliseconds(300)) == [])
        #expect(try link.message(at: .milliseconds(350)) == first)
        #expect(link.noReply(at: .seconds(8) + .milliseconds(100)) == [.offline])
        #expect(!link.isOnline)
        #expect(!link.isDue(at: .seconds(8) + .milliseconds(500)))
        #expect(link.isDue(at: .seconds(9) + .milliseconds(100)))
        // A new session starts at sequence 0.
        let restart = try parse(try link.message(at: .seconds(9) + .milliseconds(100))).packet
        #expect(restart.code == OSDPCommand.id.rawValue && restart.sequence == 0)
    }

    @Test func aReplyWithTheWrongSequenceOrAddressIsNotTaken() throws {
        var link = OSDPReaderLink(address: 4, key: nil)
        let sent = try parse(try link.message(at: .zero)).packet
        for (address, sequence, reason) in [(UInt8(4), sent.sequence + 1, "sequence"), (5, sent.sequence, "address")] {
            let reply = try parse(OSDPPacket(address: address, isReply: true, sequence: sequence, code: OSDPReply.id.rawValue).encoded())
            #expect(try link.handle(reply, at: .zero) == [.dropped(reason: reason)])
        }
    }

    @Test func localStatusIsReportedWhenItChanges() throws {
        var link = OSDPReaderLink(address: 1, key: nil)
        _ = try exchange(&link, at: .zero, .id, [])
        _ = try exchange(&link, at: .zero, .capabilities, [])
        #expect(try exchange(&link, at: .zero, .localStatus, [0, 0]).1 == [])
        #expect(try exchange(&link, at: .zero, .localStatus, [1, 0]).1 == [.tamper(active: true)])
        #expect(try exchange(&link, at: .zero, .localStatus, [1, 0]).1 == [])
        #expect(try exchange(&link, at: .zero, .localStatus, [0, 1]).1 == [.tamper(active: false), .power(ok: false)])
    }

    @Test func cardsAndShortRepliesAreParsedOrDropped() throws {
        var link = OSDPReaderLink(address: 1, key: nil)
        _ = try exchange(&link, at: .zero, .id, [])
        _ = try exchange(&link, at: .zero, .capabilities, [])
        _ = try exchange(&link, at: .zero, .localStatus, [0, 0])
        #expect(try exchange(&link, at: .zero, .rawCard, [0, 1, 26, 0, 1, 2, 3, 0x40]).1 == [.card(OSDPCard(rawFormat: 1, bits: 26, data: [1, 2, 3, 0x40]))])
        #expect(try exchange(&link, at: .zero, .rawCard, [0, 1, 26, 0, 1]).1 == [.dropped(reason: "reply_length")])
        #expect(
            try exchange(&link, at: .zero, .formattedCard, [0, 0, 3, 0x31, 0x32, 0x33]).1 == [
                .card(OSDPCard(rawFormat: nil, bits: 3, data: [0x31, 0x32, 0x33]))
            ])
        #expect(try exchange(&link, at: .zero, .keypad, [0, 9, 0x31]).1 == [.dropped(reason: "reply_length")])
        #expect(try exchange(&link, at: .zero, .nak, [3]).1 == [.nak(code: 3)])
    }

    /// A link online through the Secure Channel, its handshake answered as a reader with
    /// `key` answers it.
    func secureLink(_ key: OSDPKey) throws -> OSDPReaderLink {
        var link = OSDPReaderLink(address: 1, key: key)
        _ = try exchange(&link, at: .zero, .id, [])
        _ = try exchange(&link, at: .zero, .capabilities, [9, 1, 1])
        let challenge = try parse(try link.message(at: .zero)).packet
        let reader = try OSDPSecureChannel(key: key, serverRandom: challenge.data, clientRandom: Array(repeating: 7, count: 8))
        let crypt = OSDPPacket(
            address: 1, isReply: true, sequence: challenge.sequence, security: (0x12, [1]), code: OSDPReply.clientCryptogram.rawValue,
            data: Array(repeating: 0, count: 8) + Array(repeating: 7, count: 8) + (try reader.expectedClientCryptogram()))
        #expect(try link.handle(try parse(crypt.encoded()), at: .zero) == [])
        let scrypt = try parse(try link.message(at: .zero)).packet
        let expected = try reader.serverCryptogram()
        #expect(scrypt.code == OSDPCommand.serverCryptogram.rawValue && scrypt.data == expected)
        let answer = OSDPPacket(
            address: 1, isReply: true, sequence: scrypt.sequence, security: (0x14, [1]), code: OSDPReply.initialMAC.rawValue,
            data: try reader.initialMAC())
        #expect(try link.handle(try parse(answer.encoded()), at: .zero) == [.online(secure: true)])
        return link
    }

    @Test func aSecureReaderThatLostItsSessionGetsANewOneWithoutGoingOffline() throws {
        let key = try #require(OSDPKey(hex: "000102030405060708090a0b0c0d0e0f"))
        var link = try secureLink(key)
        let status = try parse(try link.message(at: .zero)).packet
        #expect(status.security?.type == 0x15 && status.mac?.count == 4)
        // The reader restarted: it answers in the clear with NAK 6 (security conditions not met).
        let nak = OSDPPacket(address: 1, isReply: true, sequence: status.sequence, code: OSDPReply.nak.rawValue, data: [6])
        #expect(try link.handle(try parse(nak.encoded()), at: .zero) == [.dropped(reason: "session_lost")])
        #expect(link.isOnline)
        let restart = try parse(try link.message(at: .zero)).packet
        #expect(restart.code == OSDPCommand.id.rawValue && restart.sequence == 0)
        // Any other reply in the clear from a secure reader is refused.
        var other = try secureLink(key)
        let poll = try parse(try other.message(at: .zero)).packet
        let clear = OSDPPacket(address: 1, isReply: true, sequence: poll.sequence, code: OSDPReply.keypad.rawValue, data: [0, 1, 0x31])
        #expect(try other.handle(try parse(clear.encoded()), at: .zero) == [.offline, .refused(reason: "clear_text")])
    }
}
