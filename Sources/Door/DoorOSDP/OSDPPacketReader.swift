/// Reads OSDP messages out of the bytes a serial line gives, in pieces of any size: skips
/// marks and noise up to a start of message, waits for the length the header gives, checks
/// the CRC or checksum, and parses. A bad message is dropped with its reason and reading goes
/// on from the next start of message after its first byte, so one corrupted byte never costs
/// more than the message it hit.
public struct OSDPPacketReader: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0

    public init() {}

    /// Bytes waiting for the rest of their message.
    public var pending: Int { buffer.count - start }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Forgets what is buffered (after a reply timed out, so a late half message is not joined
    /// to the next).
    public mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        start = 0
    }

    /// The next message or error, or nil until more bytes arrive.
    public mutating func next() -> Result<OSDPReceived, OSDPFrameError>? {
        defer { compact() }
        var skipped = 0
        while start < buffer.count, buffer[start] != OSDPPacket.startOfMessage {
            if buffer[start] != OSDPPacket.mark { skipped += 1 }
            start += 1
        }
        if skipped > 0 { return .failure(.noise) }
        guard buffer.count - start >= 5 else { return nil }
        let length = Int(buffer[start + 2]) | Int(buffer[start + 3]) << 8
        let control = buffer[start + 4]
        let usesCRC = control & 0x04 != 0
        let minimum = 6 + (usesCRC ? 2 : 1)
        guard length >= minimum, length <= OSDPPacket.maximumLength else { return drop(.length) }
        guard buffer.count - start >= length else { return nil }
        let message = Array(buffer[start..<(start + length)])
        let checkLength = usesCRC ? 2 : 1
        let body = message[0..<(length - checkLength)]
        if usesCRC {
            let sent = UInt16(message[length - 2]) | UInt16(message[length - 1]) << 8
            guard OSDPCheck.crc16(body) == sent else { return drop(.check) }
        } else {
            guard OSDPCheck.checksum(body) == message[length - 1] else { return drop(.check) }
        }
        var index = 5
        var security: (type: UInt8, data: [UInt8])?
        var macLength = 0
        if control & 0x08 != 0 {
            let blockLength = Int(message[index])
            guard blockLength >= 2, index + blockLength < body.count else { return drop(.securityBlock) }
            let type = message[index + 1]
            security = (type, Array(message[(index + 2)..<(index + blockLength)]))
            index += blockLength
            if OSDPSecurityBlock(rawValue: type)?.hasMAC == true { macLength = 4 }
        }
        guard index + macLength < body.count else { return drop(.length) }
        let code = message[index]
        let dataEnd = body.count - macLength
        let packet = OSDPPacket(
            address: message[1] & 0x7F, isReply: message[1] & 0x80 != 0, sequence: control & 0x03, usesCRC: usesCRC,
            security: security, code: code, data: Array(message[(index + 1)..<dataEnd]),
            mac: macLength > 0 ? Array(message[dataEnd..<body.count]) : nil)
        start += length
        return .success(OSDPReceived(packet: packet, bytesBeforeMAC: Array(message[0..<dataEnd])))
    }

    private mutating func drop(_ error: OSDPFrameError) -> Result<OSDPReceived, OSDPFrameError> {
        start += 1
        return .failure(error)
    }

    private mutating func compact() {
        if start > 0 && (start >= 512 || start == buffer.count) {
            buffer.removeFirst(start)
            start = 0
        }
    }
}
