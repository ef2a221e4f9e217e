/// Turns the pulses of a Wiegand reader into frames. A pulse on D0 is a 0 bit, on D1 a 1
/// bit; a frame ends when no pulse follows for `frameGap`. Pure: each pulse comes with its
/// time (the kernel's edge timestamp), and the caller asks for the frame once
/// ``deadline`` has passed. A frame longer than ``maxBits`` is dropped as a bad bit count.
public struct WiegandDecoder: Sendable {
    /// The longest frame kept; longer ones are noise (the longest real one is 34 bits).
    public static let maxBits = 64

    public let frameGap: Duration
    private var bits: [Bool] = []
    private var overflow = false
    private var lastPulse: Duration?

    public init(frameGap: Duration) {
        self.frameGap = frameGap
        bits.reserveCapacity(Self.maxBits)
    }

    /// When the frame being received ends, if no pulse comes before (nil: none pending).
    public var deadline: Duration? { lastPulse.map { $0 + frameGap } }

    /// Takes one pulse (`one`: on D1). A pulse after a gap first ends the previous frame,
    /// which is returned.
    public mutating func pulse(one: Bool, at time: Duration) -> Result<WiegandFrame, WiegandFrame.Rejection>? {
        let ended = deadline.map { time >= $0 } == true ? finish() : nil
        if bits.count < Self.maxBits {
            bits.append(one)
        } else {
            overflow = true
        }
        lastPulse = time
        return ended
    }

    /// The frame, once `now` is at or past ``deadline``; nil before that or with no pulses.
    public mutating func frame(at now: Duration) -> Result<WiegandFrame, WiegandFrame.Rejection>? {
        guard let deadline, now >= deadline else { return nil }
        return finish()
    }

    private mutating func finish() -> Result<WiegandFrame, WiegandFrame.Rejection> {
        defer {
            for index in bits.indices { bits[index] = false }  // a whole PIN may be in them
            bits.removeAll(keepingCapacity: true)
            overflow = false
            lastPulse = nil
        }
        return overflow ? .failure(.bitCount) : WiegandFrame.decode(bits)
    }
}
