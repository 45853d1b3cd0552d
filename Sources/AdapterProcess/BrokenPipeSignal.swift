#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing to a pipe nobody reads raises SIGPIPE, whose default action ends the whole runner. This
/// module sets it to be ignored, once, before its first process starts; a failed write then returns
/// EPIPE, which ``AdapterProcess/send(line:timeout:)`` reports as an error. Children get the default
/// action back (see ``ProcessLauncher``).
enum BrokenPipeSignal {
    private static let ignored: Bool = {
        signal(SIGPIPE, SIG_IGN)
        return true
    }()

    static func ignore() {
        _ = ignored
    }
}
