#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The two ends of a pipe, as raw file descriptors.
struct PipeDescriptors: Sendable {
    let readEnd: Int32
    let writeEnd: Int32

    /// A new pipe whose ends are close-on-exec, so no other child of this process inherits them, and
    /// numbered `lowest` or above (3: never the 0, 1 and 2 a child gets them as; 4 for a pipe a child gets as 3).
    static func make(lowest: Int32 = 3) throws(AdapterProcessError) -> PipeDescriptors {
        var ends: [Int32] = [-1, -1]
        #if canImport(Darwin)
        // No pipe2 here: posix_spawn's POSIX_SPAWN_CLOEXEC_DEFAULT covers the window before fcntl.
        let result = pipe(&ends)
        #else
        let result = pipeWithCloseOnExec(&ends)
        #endif
        guard result == 0 else {
            throw AdapterProcessError(.spawnFailed, systemError: errno, detail: "pipe failed")
        }
        let readEnd: Int32
        do throws(AdapterProcessError) {
            readEnd = try numbered(ends[0], atLeast: lowest)
        } catch {
            closeDescriptor(ends[0])
            closeDescriptor(ends[1])
            throw error
        }
        do throws(AdapterProcessError) {
            return PipeDescriptors(readEnd: readEnd, writeEnd: try numbered(ends[1], atLeast: lowest))
        } catch {
            closeDescriptor(readEnd)
            closeDescriptor(ends[1])
            throw error
        }
    }

    /// `descriptor` itself when it is `lowest` or above; otherwise a close-on-exec copy numbered `lowest` or above,
    /// and the original is closed. On failure the original is left open for the caller to close.
    private static func numbered(_ descriptor: Int32, atLeast lowest: Int32) throws(AdapterProcessError) -> Int32 {
        #if canImport(Darwin)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        #endif
        guard descriptor < lowest else { return descriptor }
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, lowest)
        guard copy >= 0 else {
            throw AdapterProcessError(.spawnFailed, systemError: errno, detail: "fcntl(F_DUPFD_CLOEXEC) failed")
        }
        closeDescriptor(descriptor)
        return copy
    }

    func closeBoth() {
        closeDescriptor(readEnd)
        closeDescriptor(writeEnd)
    }
}

#if !canImport(Darwin)
/// `pipe2(ends, O_CLOEXEC)`: both ends close-on-exec from the start, so a child that another thread
/// spawns at the same moment cannot inherit them. The C library has it, but its header declares it only
/// under _GNU_SOURCE, which Swift's Glibc module is not built with, so it is looked up by name.
private func pipeWithCloseOnExec(_ ends: UnsafeMutablePointer<Int32>) -> Int32 {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    guard let pipe2 = UnsafeMutableRawPointer(bitPattern: pipe2Address) else {
        // Not expected on Linux; without it there is a short window in which a child spawned by another
        // thread could inherit the ends.
        guard pipe(ends) == 0 else { return -1 }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return 0
    }
    return unsafeBitCast(pipe2, to: Pipe2.self)(ends, O_CLOEXEC)
}

/// The address of the C library's `pipe2` (0 if it has none), looked up once.
private let pipe2Address: Int = Int(bitPattern: dlsym(dlopen(nil, RTLD_NOW), "pipe2"))
#endif

/// Closes `descriptor`. Not retried on EINTR: on Linux the descriptor is released even then, and a retry
/// could close a descriptor another thread has just been given.
func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}

/// Sets O_NONBLOCK on `descriptor`.
func makeNonBlocking(_ descriptor: Int32) {
    let flags = fcntl(descriptor, F_GETFL)
    if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
}

/// `write(2)` of `bytes` to `descriptor`: the count written, or -1 with errno set.
func writeDescriptor(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    write(descriptor, bytes.baseAddress, bytes.count)
}
