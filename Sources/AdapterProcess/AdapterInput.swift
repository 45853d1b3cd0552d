#if canImport(Glibc)
import POSIXSync
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The runner's end of the adapter's stdin. Writes are whole lines, one at a time. Once a write fails,
/// every later one throws the same error: a line may have been cut, and nothing after it could be read
/// as protocol.
final class AdapterInput: @unchecked Sendable {
    private let lock = ConditionLock()
    /// nil once closed. Guarded by `lock`.
    private var descriptor: Int32?
    /// The error that made stdin unusable. Guarded by `lock`.
    private var failure: AdapterProcessError?

    /// Takes ownership of `descriptor`, the write end of the stdin pipe, and makes it non-blocking so a
    /// write can time out.
    init(descriptor: Int32) {
        makeNonBlocking(descriptor)
        self.descriptor = descriptor
    }

    deinit {
        if let descriptor { closeDescriptor(descriptor) }
    }

    /// Writes all of `bytes`, waiting for room in the pipe until `timeout` (nil: as long as it takes).
    func write(_ bytes: [UInt8], timeout: Duration?) throws(AdapterProcessError) {
        try lock.withLock { () throws(AdapterProcessError) in
            if let failure { throw failure }
            guard let descriptor else {
                throw AdapterProcessError(.inputClosed, detail: "closeInput() or terminate(grace:) closed it")
            }
            do throws(AdapterProcessError) {
                try Self.writeAll(bytes, to: descriptor, deadline: timeout.map { MonotonicDeadline.after($0) })
            } catch {
                failure = error
                throw error
            }
        }
    }

    /// Closes stdin, so the adapter reads end of file. Later writes throw `inputClosed`.
    func close() {
        lock.withLock {
            if let descriptor { closeDescriptor(descriptor) }
            descriptor = nil
        }
    }

    private static func writeAll(
        _ bytes: [UInt8], to descriptor: Int32, deadline: MonotonicDeadline?
    ) throws(AdapterProcessError) {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { writeDescriptor(descriptor, $0) }
            if count >= 0 {
                written += count
                continue
            }
            let error = errno
            switch error {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                try waitForRoom(descriptor, deadline: deadline, written: written, of: bytes.count)
            case EPIPE:
                throw AdapterProcessError(.brokenPipe, systemError: error, detail: "\(written) of \(bytes.count) bytes written")
            default:
                throw AdapterProcessError(.writeFailed, systemError: error, detail: "\(written) of \(bytes.count) bytes written")
            }
        }
    }

    private static func waitForRoom(
        _ descriptor: Int32, deadline: MonotonicDeadline?, written: Int, of total: Int
    ) throws(AdapterProcessError) {
        var watched = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        while true {
            let milliseconds = deadline.map { $0.remainingMilliseconds } ?? -1
            if milliseconds == 0 {
                throw AdapterProcessError(.sendTimedOut, detail: "\(written) of \(total) bytes written before the timeout")
            }
            watched.revents = 0
            let ready = poll(&watched, 1, milliseconds)
            if ready > 0 { return }  // room, or POLLERR/POLLHUP that the next write turns into EPIPE
            if ready < 0 && errno != EINTR {
                throw AdapterProcessError(.writeFailed, systemError: errno, detail: "poll failed after \(written) of \(total) bytes")
            }
        }
    }
}
