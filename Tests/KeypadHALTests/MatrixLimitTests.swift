import KeypadHAL
import KioskPadCore
import Testing

#if canImport(CKeypadGPIO)
    import CKeypadGPIO
#endif

/// The 8-line limit is written once in Swift (MatrixLimits) and once in C (KP_MAX_LINES).
@Suite("Matrix limits")
struct MatrixLimitTests {
    @Test func theCShimAndSwiftAgree() {
        #expect(MatrixLayout.maxLines == MatrixLimits.maxLines)
        #if canImport(CKeypadGPIO)
            #expect(Int(KP_MAX_LINES) == MatrixLimits.maxLines)
        #endif
    }
}
