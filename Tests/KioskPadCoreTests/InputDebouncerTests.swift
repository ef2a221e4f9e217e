import KioskPadCore
import Testing

@Suite("Input debouncer (door contact, exit button, tamper)")
struct InputDebouncerTests {
    @Test func aLevelCountsOnceItHeldForTheDebounceTime() {
        var debouncer = InputDebouncer(initial: false, debounce: .milliseconds(50), at: .zero)
        #expect(debouncer.observe(true, at: .milliseconds(100)) == .milliseconds(150))
        #expect(debouncer.settle(at: .milliseconds(149)) == nil)
        #expect(debouncer.settle(at: .milliseconds(150)) == true)
        #expect(debouncer.stable)
        #expect(debouncer.observe(true, at: .milliseconds(200)) == nil)
    }

    @Test func bounceRestartsTheTimeAndABlipShorterThanTheDebounceIsNothing() {
        var debouncer = InputDebouncer(initial: false, debounce: .milliseconds(50), at: .zero)
        _ = debouncer.observe(true, at: .milliseconds(10))
        _ = debouncer.observe(false, at: .milliseconds(12))
        #expect(debouncer.observe(true, at: .milliseconds(15)) == .milliseconds(65))
        #expect(debouncer.settle(at: .milliseconds(60)) == nil)
        // A 40 ms blip back to the stable level: nothing pending, nothing reported.
        #expect(debouncer.observe(false, at: .milliseconds(55)) == nil)
        #expect(debouncer.settle(at: .milliseconds(500)) == nil)
        #expect(!debouncer.stable)
    }
}
