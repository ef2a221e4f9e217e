/// One OSDP message as it travels on the wire (SIA OSDP v2.2, section 5): start of message
/// 0x53, the reader's address (bit 7 set on a reply), the length of the whole message, the
/// control byte (sequence number, CRC or checksum, security block present), the optional
/// security block, the command or reply code, its data, the MAC of a secure message, and the
/// check. `data` is as sent: encrypted when the security block says so.
public struct OSDPPacket: Equatable, Sendable {
    public static let startOfMessage: UInt8 = 0x53
    /// The byte readers and panels may send before a message so the line settles; skipped.
    public static let mark: UInt8 = 0xFF
    /// The longest message this side sends or accepts.
    public static let maximumLength = 1024
    /// The address a message to every reader goes to.
    public static let broadcast: UInt8 = 0x7F

    /// 0...126, or 127 for broadcast.
    public var address: UInt8
    public var isReply: Bool
    /// 0 starts a new session; then 1, 2, 3, 1, ...
    public var sequence: UInt8
    public var usesCRC: Bool
    /// The security block's type and data (its length byte is implied).
    public var security: (type: UInt8, data: [UInt8])?
    public var code: UInt8
    public var data: [UInt8]
    /// The first 4 bytes of the message's MAC, when the security block type carries one.
    public var mac: [UInt8]?

    public init(
        address: UInt8, isReply: Bool = false, sequence: UInt8, usesCRC: Bool = true, security: (type: UInt8, data: [UInt8])? = nil,
        code: UInt8, data: [UInt8] = [], mac: [UInt8]? = nil
    ) {
        self.address = address
        self.isReply = isReply
        self.sequence = sequence
        self.usesCRC = usesCRC
        self.security = security
        self.code = code
        self.data = data
        self.mac = mac
    }

    public static func == (lhs: OSDPPacket, rhs: OSDPPacket) -> Bool {
        lhs.address == rhs.address && lhs.isReply == rhs.isReply && lhs.sequence == rhs.sequence && lhs.usesCRC == rhs.usesCRC
            && lhs.security?.type == rhs.security?.type && lhs.security?.data == rhs.security?.data && lhs.code == rhs.code
            && lhs.data == rhs.data && lhs.mac == rhs.mac
    }

    /// The bytes from the start of message up to the MAC (or the check), with the length
    /// already counting a MAC of `macLength` bytes and the check: what a MAC is computed over.
    public func bytesBeforeMAC(macLength: Int) -> [UInt8] {
        var bytes: [UInt8] = [OSDPPacket.startOfMessage, address & 0x7F | (isReply ? 0x80 : 0), 0, 0]
        var control = sequence & 0x03
        if usesCRC { control |= 0x04 }
        if security != nil { control |= 0x08 }
        bytes.append(control)
        if let security {
            bytes.append(UInt8(security.data.count + 2))
            bytes.append(security.type)
            bytes.append(contentsOf: security.data)
        }
        bytes.append(code)
        bytes.append(contentsOf: data)
        let length = bytes.count + macLength + (usesCRC ? 2 : 1)
        bytes[2] = UInt8(length & 0xFF)
        bytes[3] = UInt8(length >> 8)
        return bytes
    }

    /// The whole message, `mac` (if set) and the check appended.
    public func encoded() -> [UInt8] {
        var bytes = bytesBeforeMAC(macLength: mac?.count ?? 0)
        if let mac { bytes.append(contentsOf: mac) }
        if usesCRC {
            let crc = OSDPCheck.crc16(bytes)
            bytes.append(UInt8(crc & 0xFF))
            bytes.append(UInt8(crc >> 8))
        } else {
            bytes.append(OSDPCheck.checksum(bytes))
        }
        return bytes
    }
}

/// One message read off the line: the parsed packet and the bytes a MAC covers.
public struct OSDPReceived: Sendable {
    public let packet: OSDPPacket
    /// From the start of message up to the MAC (what ``OSDPSecureChannel`` checks).
    public let bytesBeforeMAC: [UInt8]
}

/// Why bytes read off the line were dropped; `rawValue` names it in logs and metrics.
public enum OSDPFrameError: String, Error, Sendable, CaseIterable {
    /// The CRC or checksum did not match: noise, a collision, a cut-off message.
    case check
    /// The length field is shorter than a message can be or longer than ``OSDPPacket/maximumLength``.
    case length
    /// The security block's length runs past the message, or is under 2.
    case securityBlock = "security_block"
    /// Bytes that were not the start of a message.
    case noise
}
