/// Byte comparison whose running time depends only on the lengths, never on where the
/// first difference is.
public enum ConstantTime {
    public static func equal(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }
}

extension SecretDigits {
    /// True when `other` holds the same digits (a PIN or card number typed twice); compares
    /// in constant time, and each value is read only through its wiped scratch buffer.
    public func hasSameDigits(as other: SecretDigits) -> Bool {
        withASCIIBytes { mine in other.withASCIIBytes { ConstantTime.equal(mine, $0) } }
    }
}
