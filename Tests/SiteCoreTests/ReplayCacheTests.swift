import SiteCore
import Testing

@Suite("Replay cache")
struct ReplayCacheTests {
    @Test func replayCacheIsBounded() {
        var cache = ReplayCache(capacity: 2)
        let results = ["a", "a", "b", "c", "a"].map { cache.insert($0) }
        // "a" is new, repeated, then forgotten once "b" and "c" filled the cache.
        #expect(results == [true, false, true, true, true])
        #expect(cache.count == 2)
    }
}
