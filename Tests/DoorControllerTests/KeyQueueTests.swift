import KioskPadCore
import Testing

@testable import DoorController

@Suite("Deferred-key queue")
struct KeyQueueTests {
    @Test func keysComeOutInTheOrderTheyWentIn() {
        var queue = KeyQueue()
        var expected: [KeyInput] = []
        var got: [KeyInput] = []
        for round in 0..<3_000 {
            for digit in 0..<(round % 7) {
                let key = KeyInput.label(Character(String(digit)))
                queue.push(key)
                expected.append(key)
            }
            for _ in 0..<(round % 5) { if let key = queue.pop() { got.append(key) } }
        }
        while let key = queue.pop() { got.append(key) }
        #expect(got == expected)
        #expect(queue.isEmpty && queue.count == 0)
        #expect(queue.pop() == nil)
    }
}
