/// The control panel's side of one reader's session, without I/O: which message to send
/// next, and what a reply (or its absence) means. A session starts with sequence 0 and asks
/// the reader who it is (osdp_ID) and what it can do (osdp_CAP); a reader with a key then
/// goes through the Secure Channel handshake (osdp_CHLNG, osdp_SCRYPT) before it is used.
/// Online, it is polled, and queued commands (LED, buzzer, text, key set) go out in place of
/// a poll. A reply that does not come is sent again with the same sequence number; no valid
/// reply for `offlineAfter` makes the reader offline, and a new session is tried every
/// `retryInterval` until it answers.
public struct OSDPReaderLink: Sendable {
    enum Phase: Equatable {
        case identify, capabilities, challenge, serverCryptogram, online
    }

    public let address: UInt8
    let key: OSDPKey?
    let keyIndicator: UInt8
    let offlineAfter: Duration
    let retryInterval: Duration
    var phase = Phase.identify
    var sequence: UInt8 = 0
    var sentSequence: UInt8 = 0
    var sentCommand: OSDPCommand?
    var sentBytes: [UInt8] = []
    var awaitingReply = false
    /// Set by ``handle(_:at:)`` when the message was this exchange's reply (valid or not).
    var replyTaken = false
    var channel: OSDPSecureChannel?
    var serverRandom: [UInt8] = []
    var lastValidReply: Duration?
    var notBefore: Duration = .zero
    public private(set) var isOnline = false
    var refusal: String?
    var queue: [OSDPOutgoing] = []
    var tamper = false
    var powerOK = true
    /// Whether the reader said it has a text panel (osdp_PDCAP function 8).
    public private(set) var hasText = false

    /// `key` nil: the reader is used in the clear. `installMode`: the handshake uses SCBK-D
    /// (the default key a reader in install mode accepts), for giving it its own key.
    public init(
        address: UInt8, key: OSDPKey?, installMode: Bool = false, offlineAfter: Duration = .seconds(8), retryInterval: Duration = .seconds(1)
    ) {
        self.address = address
        self.key = installMode ? .installDefault : key
        self.keyIndicator = installMode ? 0 : 1
        self.offlineAfter = offlineAfter
        self.retryInterval = retryInterval
    }

    /// True when this reader may be sent a message at `now` (a reader that is down is tried
    /// once per `retryInterval`).
    public func isDue(at now: Duration) -> Bool { now >= notBefore }

    /// Queues a command for an online reader; the oldest is dropped beyond 8.
    public mutating func enqueue(_ outgoing: OSDPOutgoing) {
        queue.append(outgoing)
        if queue.count > 8 { queue.removeFirst() }
    }

    /// The bytes to send now: the last message again when its reply did not come, else the
    /// next step of the session.
    public mutating func message(at now: Duration) throws -> [UInt8] {
        if awaitingReply { return sentBytes }
        let (command, security, data): (OSDPCommand, (type: UInt8, data: [UInt8])?, [UInt8])
        switch phase {
        case .identify:
            sequence = 0
            (command, security, data) = (.id, nil, [0])
        case .capabilities:
            (command, security, data) = (.capabilities, nil, [0])
        case .challenge:
            serverRandom = OSDPSecureChannel.randomChallenge()
            (command, security, data) = (.challenge, (OSDPSecurityBlock.challenge.rawValue, [keyIndicator]), serverRandom)
        case .serverCryptogram:
            (command, security, data) = (
                .serverCryptogram, (OSDPSecurityBlock.serverCryptogram.rawValue, [keyIndicator]), try channel?.serverCryptogram() ?? []
            )
        case .online:
            let next = queue.isEmpty ? OSDPOutgoing(.poll, []) : queue.removeFirst()
            command = next.command
            if let channel {
                let encrypted = next.data.isEmpty ? [] : try channel.encryptCommandData(next.data)
                let type = next.data.isEmpty ? OSDPSecurityBlock.commandMAC : .commandEncrypted
                (security, data) = ((type.rawValue, []), encrypted)
            } else {
                (security, data) = (nil, next.data)
            }
        }
        var packet = OSDPPacket(address: address, sequence: sequence, security: security, code: command.rawValue, data: data)
        if phase == .online, var channel {
            packet.mac = try channel.signCommand(packet.bytesBeforeMAC(macLength: 4))
            self.channel = channel
        }
        sentSequence = sequence
        sentCommand = command
        sentBytes = packet.encoded()
        awaitingReply = true
        sequence = sequence % 3 + 1
        return sentBytes
    }

    /// No reply came in time: the message is sent again, until the reader has been silent for
    /// `offlineAfter`; then it is offline until a new session is answered.
    public mutating func noReply(at now: Duration) -> [OSDPReaderEvent] {
        // A reader that has not answered in this session is tried again after the retry
        // interval, so one that is missing costs the others one reply timeout per interval.
        guard let since = lastValidReply else { return restart(at: now, retryAfter: retryInterval) }
        guard now - since >= offlineAfter else { return [] }
        return restart(at: now, retryAfter: retryInterval)
    }

    /// Starts a new session (sequence 0, no Secure Channel) at `now + retryAfter`.
    mutating func restart(at now: Duration, retryAfter: Duration) -> [OSDPReaderEvent] {
        let wasOnline = isOnline
        isOnline = false
        phase = .identify
        channel = nil
        awaitingReply = false
        lastValidReply = nil
        notBefore = now + retryAfter
        return wasOnline ? [.offline] : []
    }

    /// The reader's reply to the last message.
    public mutating func handle(_ received: OSDPReceived, at now: Duration) throws -> [OSDPReaderEvent] {
        let packet = received.packet
        replyTaken = false
        guard packet.isReply, packet.address == address else { return [.dropped(reason: "address")] }
        // Commands go out with a CRC and a reader answers in kind: a reply with only the 8-bit
        // checksum is one a single corrupted pair of bytes could forge.
        guard packet.usesCRC else { return [.dropped(reason: "check")] }
        guard awaitingReply, packet.sequence == sentSequence else { return [.dropped(reason: "sequence")] }
        replyTaken = true
        var data = packet.data
        if phase == .online, channel == nil, packet.security != nil {
            return [.dropped(reason: "security_block")]
        }
        if phase == .online, var channel {
            guard let type = packet.security.flatMap({ OSDPSecurityBlock(rawValue: $0.type) }), type == .replyMAC || type == .replyEncrypted,
                let mac = packet.mac
            else {
                awaitingReply = false
                if packet.security == nil, packet.code == OSDPReply.nak.rawValue {
                    // The reader no longer has the session (it restarted, or dropped it after a
                    // silence) and says so in the clear: a new session at once, without an
                    // offline report. It is used again only once the new handshake succeeds.
                    phase = .identify
                    self.channel = nil
                    return [.dropped(reason: "session_lost")]
                }
                return refuse("clear_text", at: now)
            }
            guard try channel.verifyReply(received.bytesBeforeMAC, mac: mac) else {
                awaitingReply = false
                return refuse("mac", at: now)
            }
            if type == .replyEncrypted {
                guard let plain = try channel.decryptReplyData(data) else {
                    awaitingReply = false
                    return refuse("mac", at: now)
                }
                data = plain
            }
            self.channel = channel
        }
        awaitingReply = false
        lastValidReply = now
        guard let reply = OSDPReply(rawValue: packet.code) else { return [.dropped(reason: "unknown_reply")] }
        if reply == .busy {
            awaitingReply = true
            return []
        }
        return try advance(reply, data: data, security: packet.security, at: now)
    }

    private mutating func advance(
        _ reply: OSDPReply, data: [UInt8], security: (type: UInt8, data: [UInt8])?, at now: Duration
    ) throws -> [OSDPReaderEvent] {
        switch (phase, reply) {
        case (.identify, .id):
            phase = .capabilities
            return []
        case (.capabilities, .capabilities):
            let functions = stride(from: 0, to: data.count - 2, by: 3).map { (code: data[$0], compliance: data[$0 + 1]) }
            hasText = functions.contains { $0.code == 8 && $0.compliance > 0 }
            if key == nil { return goOnline(secure: false) }
            // Function 9, communication security: bit 0 of its compliance is AES-128 support.
            guard functions.contains(where: { $0.code == 9 && $0.compliance & 1 == 1 }) else { return refuse("no_secure_channel", at: now) }
            phase = .challenge
            return []
        case (.challenge, .clientCryptogram):
            guard security?.type == OSDPSecurityBlock.clientCryptogram.rawValue, data.count >= 32, let key else {
                return refuse("clear_text", at: now)
            }
            let channel = try OSDPSecureChannel(key: key, serverRandom: serverRandom, clientRandom: Array(data[8..<16]))
            guard OSDPSecureChannel.constantTimeEqual(try channel.expectedClientCryptogram(), Array(data[16..<32])) else {
                return refuse("key", at: now)
            }
            self.channel = channel
            phase = .serverCryptogram
            return []
        case (.challenge, .nak):
            return refuse("no_secure_channel", at: now)
        case (.challenge, _):
            return refuse("clear_text", at: now)
        case (.serverCryptogram, .initialMAC):
            guard security?.type == OSDPSecurityBlock.initialMAC.rawValue, security?.data.first == 1, data.count >= 16,
                var channel, try channel.acceptInitialMAC(Array(data.prefix(16)))
            else { return refuse("key", at: now) }
            self.channel = channel
            return goOnline(secure: true)
        case (.serverCryptogram, .nak):
            return refuse("key", at: now)
        case (.online, _):
            return OSDPReplyParser.events(reply, data: data, sent: sentCommand, link: &self)
        case (.identify, .nak), (.capabilities, .nak):
            // An old reader without osdp_ID or osdp_CAP: go on without what they tell.
            if phase == .identify {
                phase = .capabilities
                return []
            }
            if key == nil { return goOnline(secure: false) }
            phase = .challenge
            return []
        default:
            return [.dropped(reason: "unknown_reply")]
        }
    }

    private mutating func goOnline(secure: Bool) -> [OSDPReaderEvent] {
        phase = .online
        isOnline = true
        refusal = nil
        queue.insert(OSDPOutgoing(.localStatus, []), at: 0)
        return [.online(secure: secure)]
    }

    /// The reader is not used; the handshake is tried again after 10 s. A refusal is reported
    /// when its reason changes, not on every try.
    private mutating func refuse(_ reason: String, at now: Duration) -> [OSDPReaderEvent] {
        var events = restart(at: now, retryAfter: .seconds(10))
        if refusal != reason { events.append(.refused(reason: reason)) }
        refusal = reason
        return events
    }

    mutating func noteLocalStatus(tamper: Bool, powerOK: Bool) -> [OSDPReaderEvent] {
        var events: [OSDPReaderEvent] = []
        if tamper != self.tamper { events.append(.tamper(active: tamper)) }
        if powerOK != self.powerOK { events.append(.power(ok: powerOK)) }
        self.tamper = tamper
        self.powerOK = powerOK
        return events
    }
}

/// What an online reader's replies mean.
enum OSDPReplyParser {
    static func events(_ reply: OSDPReply, data: [UInt8], sent: OSDPCommand?, link: inout OSDPReaderLink) -> [OSDPReaderEvent] {
        switch reply {
        case .ack:
            return sent == .keySet ? [.keySetAccepted] : []
        case .nak:
            return [.nak(code: data.first ?? 0)]
        case .keypad:
            guard data.count >= 2, data.count >= 2 + Int(data[1]) else { return [.dropped(reason: "reply_length")] }
            return [.keys(Array(data[2..<(2 + Int(data[1]))]))]
        case .rawCard:
            guard data.count >= 4 else { return [.dropped(reason: "reply_length")] }
            let bits = Int(data[2]) | Int(data[3]) << 8
            guard bits > 0, data.count - 4 >= (bits + 7) / 8 else { return [.dropped(reason: "reply_length")] }
            return [.card(OSDPCard(rawFormat: data[1], bits: bits, data: Array(data[4..<(4 + (bits + 7) / 8)])))]
        case .formattedCard:
            guard data.count >= 3, data.count - 3 >= Int(data[2]), data[2] > 0 else { return [.dropped(reason: "reply_length")] }
            return [.card(OSDPCard(rawFormat: nil, bits: Int(data[2]), data: Array(data[3..<(3 + Int(data[2]))])))]
        case .localStatus:
            guard data.count >= 2 else { return [.dropped(reason: "reply_length")] }
            return link.noteLocalStatus(tamper: data[0] != 0, powerOK: data[1] == 0)
        default:
            return []
        }
    }
}
