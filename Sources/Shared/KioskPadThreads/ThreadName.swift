import Foundation

/// Names the calling thread for the kernel (`ps -L`, `top -H`, `/proc/PID/task/*/comm`; at
/// most 15 bytes are kept). Written to `/proc/thread-self/comm` directly:
/// `Thread.current.name`, set from inside a thread that a libdispatch worker had started,
/// left the creator's name in place (`oot.default-qos`) about 1 time in 5 to 200 here.
public func nameCurrentThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY)
    guard descriptor >= 0 else { return }
    _ = name.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
    close(descriptor)
}

/// The calling thread's name as the kernel has it (empty if it cannot be read).
public func currentThreadName() -> String {
    guard let text = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8) else { return "" }
    return text.trimmingCharacters(in: .newlines)
}
