import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// This executable run again in place of this process, with the same arguments: a door
/// adopted by its site goes live without anyone restarting it.
enum SelfExecutable {
    static func restart() -> Never {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var arguments = ([path] + CommandLine.arguments.dropFirst()).map { strdup($0) }
        arguments.append(nil)
        execv(path, arguments)
        FileHandle.standardError.write(Data("kioskpad: run: cannot start again after pairing: \(String(cString: strerror(errno))); start it again\n".utf8))
        exit(1)
    }
}
