import KioskPadCore

/// A first-in first-out queue of keys with O(1) amortised push and pop (a head index into
/// an array, compacted once the consumed part is at least half of it), for the keys a
/// script types while an attempt is being verified.
struct KeyQueue {
    private var keys: [KeyInput] = []
    private var head = 0

    var isEmpty: Bool { head == keys.count }
    var count: Int { keys.count - head }

    mutating func push(_ key: KeyInput) {
        keys.append(key)
    }

    mutating func pop() -> KeyInput? {
        guard head < keys.count else { return nil }
        let key = keys[head]
        head += 1
        if head == keys.count {
            keys.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= keys.count {
            keys.removeFirst(head)
            head = 0
        }
        return key
    }
}
