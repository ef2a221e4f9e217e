import KioskPadCore
import Testing

@Suite("Backlight timeout")
struct BacklightTimerTests {
    @Test func goesDarkOnlyWhenIdleAndTheWakingKeyIsNotTyped() {
        var backlight = BacklightTimer(timeout: .seconds(30), at: .zero)
        #expect(backlight.deadline(idle: true) == .seconds(30))
        let early = backlight.expire(at: .seconds(29), idle: true)
        let busy = backlight.expire(at: .seconds(31), idle: false)  // an entry or result keeps it lit
        let idle = backlight.expire(at: .seconds(31), idle: true)
        #expect(!early && !busy && idle && !backlight.isLit)
        #expect(backlight.deadline(idle: true) == nil)
        let waking = backlight.key(at: .seconds(40))
        let typed = backlight.key(at: .seconds(41))
        #expect(!waking && typed && backlight.isLit)  // the first key only wakes it
        #expect(backlight.deadline(idle: true) == .seconds(71))
    }

    @Test func aResultOrAlertLightsItAndRestartsTheTimeout() {
        var backlight = BacklightTimer(timeout: .seconds(10), at: .zero)
        let dark = backlight.expire(at: .seconds(10), idle: true)
        #expect(dark)
        backlight.wake(at: .seconds(50))
        #expect(backlight.isLit && backlight.deadline(idle: true) == .seconds(60))
    }
}
