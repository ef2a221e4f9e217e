#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Zeroes `count` bytes at `pointer` in a way the optimiser may not elide.
@inline(never)
func wipeBytes(_ pointer: UnsafeMutablePointer<UInt8>, count: Int) {
    #if canImport(Glibc)
        explicit_bzero(pointer, count)
    #else
        memset_s(pointer, count, 0, count)
    #endif
}

/// The one fixed buffer that holds digits while they are typed. It never grows or moves,
/// and is zeroed on submit, clear, cancel and timeout (and when freed).
public final class DigitBuffer {
    public let capacity: Int
    public private(set) var count = 0
    private let storage: UnsafeMutablePointer<UInt8>

    public init(capacity: Int) {
        precondition(capacity > 0, "DigitBuffer needs a capacity")
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
    }

    deinit {
        wipeBytes(storage, count: capacity)
        storage.deallocate()
    }

    public var isEmpty: Bool { count == 0 }
    public var isFull: Bool { count == capacity }

    /// Appends a digit; returns false (and changes nothing) when full.
    @discardableResult
    public func append(_ digit: UInt8) -> Bool {
        guard count < capacity, digit <= 9 else { return false }
        storage[count] = digit
        count += 1
        return true
    }

    /// Removes the last digit and zeroes its cell.
    public func removeLast() {
        guard count > 0 else { return }
        count -= 1
        storage[count] = 0
    }

    /// Zeroes every cell, including ones never used.
    public func wipe() {
        wipeBytes(storage, count: capacity)
        count = 0
    }

    /// The digit in slot `index` (for code mode, where digits are shown).
    public func digit(at index: Int) -> UInt8 {
        precondition(index < count)
        return storage[index]
    }

    /// Copies the digits into a ``SecretDigits`` and zeroes this buffer.
    public func take() -> SecretDigits {
        let secret = SecretDigits(copying: UnsafeBufferPointer(start: storage, count: count))
        wipe()
        return secret
    }

    /// True when every byte of the backing store is zero (tests check the wipe with this).
    public var isZeroed: Bool {
        (0..<capacity).allSatisfy { storage[$0] == 0 }
    }
}

/// A submitted PIN or code on its way to a verifier. Immutable after creation, zeroed when
/// the last reference goes away, and never printed: its descriptions show only a count.
public final class SecretDigits: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    // @unchecked: the bytes are written once in init and only read afterwards; deinit wipes them.
    public let count: Int
    private let storage: UnsafeMutablePointer<UInt8>

    init(copying digits: UnsafeBufferPointer<UInt8>) {
        count = digits.count
        storage = .allocate(capacity: max(count, 1))
        storage.initialize(repeating: 0, count: max(count, 1))
        for (index, digit) in digits.enumerated() { storage[index] = digit }
    }

    /// Builds a secret from ASCII digits; returns nil for anything but `0`-`9`.
    public convenience init?(ascii text: some StringProtocol) {
        self.init(asciiBytes: text.utf8)
    }

    /// Builds a secret from ASCII digit bytes (a received message's field, which the caller
    /// wipes); returns nil for anything but `0`-`9`.
    public convenience init?(asciiBytes bytes: some Collection<UInt8>) {
        guard bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let scratch = DigitBuffer(capacity: max(bytes.count, 1))
        for byte in bytes { scratch.append(byte - 0x30) }
        let secret = scratch.take()
        self.init(copying: secret)
    }

    /// `value` as decimal digits, zero-padded on the left to `width` (a card's number);
    /// `width` must hold every digit of `value`.
    public static func zeroPadded(_ value: UInt64, width: Int) -> SecretDigits {
        let buffer = DigitBuffer(capacity: width)
        var divisor: UInt64 = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            buffer.append(UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
        return buffer.take()
    }

    private convenience init(copying other: SecretDigits) {
        let pointer = UnsafeBufferPointer(start: other.storage, count: other.count)
        self.init(copying: pointer)
    }

    deinit {
        wipeBytes(storage, count: max(count, 1))
        storage.deallocate()
    }

    /// Runs `body` with the digits as ASCII bytes (`"0"`...`"9"`) in a scratch buffer that is
    /// zeroed afterwards. This is the only way to read the value.
    public func withASCIIBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, 1))
        defer {
            wipeBytes(scratch, count: max(count, 1))
            scratch.deallocate()
        }
        for index in 0..<count { scratch[index] = storage[index] + 0x30 }
        return try body(UnsafeBufferPointer(start: scratch, count: count))
    }

    public var description: String { "<\(count) digits>" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["count": count]) }
}
