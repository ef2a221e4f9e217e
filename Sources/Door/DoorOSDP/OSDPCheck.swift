/// The two message checks of SIA OSDP v2.2: CRC-16 (polynomial 0x1021, initial value 0x1D0F,
/// no reflection, sent least significant byte first) and the 8-bit checksum (the two's
/// complement of the sum of the bytes) that old readers use instead.
public enum OSDPCheck {
    private static let table: [UInt16] = (0..<256).map { index in
        var value = UInt16(index) << 8
        for _ in 0..<8 { value = value & 0x8000 != 0 ? (value << 1) ^ 0x1021 : value << 1 }
        return value
    }

    /// The CRC-16 of `bytes`, from the start of message through the last byte before the check.
    public static func crc16(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc: UInt16 = 0x1D0F
        for byte in bytes { crc = (crc << 8) ^ table[Int((crc >> 8) ^ UInt16(byte))] }
        return crc
    }

    /// The checksum of `bytes`: the byte that makes their sum zero modulo 256.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt8 {
        var sum: UInt8 = 0
        for byte in bytes { sum &+= byte }
        return 0 &- sum
    }
}
