/// Waits (up to 5 s, polling every 10 ms) until `condition` holds; for states other tasks
/// or threads reach.
public func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<500 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
