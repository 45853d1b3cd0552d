import ConformanceProtocol
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The threads that read the adapter's stdout and stderr. Each owns its pipe's read end and closes it
/// when done: at end of file, or when woken through the stop pipe.
enum OutputReaders {
    private static let chunkSize = 64 * 1024

    /// Reads stdout, cuts it into lines and queues them. After a framing error it keeps reading and
    /// dropping the bytes, so the adapter does not block on a full pipe and its end can still be seen.
    static func startStdout(
        _ descriptor: Int32, stopPipe: Int32, channel: AdapterChannel, maximumLineLength: Int
    ) {
        startThread(named: "adapter-stdout", descriptor, stopPipe: stopPipe, channel: channel) {
            var framer = JSONLineFramer(maximumLineLength: maximumLineLength)
            let reachedEnd = readUntilEnd(descriptor, stopPipe: stopPipe) { chunk in
                guard framer.failure == nil else { return }
                var lines: [String] = []
                do throws(FramingError) {
                    lines = try framer.feed(chunk)
                } catch {
                    // The framer keeps the error as `failure`; it is queued after the lines below.
                }
                channel.lock.withLock {
                    channel.enqueue(lines, failure: framer.failure)
                    _ = channel.lock.wait(until: nil) { channel.hasRoomForLines }
                }
            }
            guard reachedEnd else { return }
            let end: AdapterChannel.OutputEnd
            do throws(FramingError) {
                try framer.finish()
                end = .closed
            } catch {
                end = .failed(error)
            }
            channel.lock.withLock { channel.endOutput(end) }
        }
    }

    /// Reads stderr into the channel's ring buffer. `stderrReading` is set from the moment the pipe is readable until
    /// what was read is appended, so `AdapterProcess.syncStderr` can tell a pipe read to its end.
    static func startStderr(_ descriptor: Int32, stopPipe: Int32, channel: AdapterChannel) {
        channel.lock.withLock { channel.stderrDescriptor = descriptor }
        startThread(named: "adapter-stderr", descriptor, stopPipe: stopPipe, channel: channel) {
            let reachedEnd = readUntilEnd(descriptor, stopPipe: stopPipe, willRead: {
                channel.lock.withLock { channel.stderrReading = true }
            }) { chunk in
                channel.lock.withLock {
                    channel.stderr.append(chunk)
                    channel.stderrReading = false
                    channel.lock.broadcast()
                }
            }
            channel.lock.withLock {
                channel.stderrDescriptor = nil
                channel.stderrReading = false
                if reachedEnd { channel.stderrEnded = true }
                channel.lock.broadcast()
            }
        }
    }

    private static func startThread(
        named name: String, _ descriptor: Int32, stopPipe: Int32, channel: AdapterChannel,
        _ body: @escaping @Sendable () -> Void
    ) {
        channel.lock.withLock { channel.runningReaders += 1 }
        let thread = Thread {
            body()
            closeDescriptor(descriptor)
            channel.lock.withLock {
                channel.runningReaders -= 1
                channel.lock.broadcast()
            }
        }
        thread.name = name
        thread.start()
    }

    /// Reads `descriptor` until end of file or a read error (returns true), or until the stop pipe
    /// becomes readable (returns false), handing every chunk to `consume`.
    private static func readUntilEnd(
        _ descriptor: Int32, stopPipe: Int32, willRead: () -> Void = {}, consume: (ArraySlice<UInt8>) -> Void
    ) -> Bool {
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var watched = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopPipe, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            watched[0].revents = 0
            watched[1].revents = 0
            let ready = poll(&watched, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return true
            }
            if watched[1].revents != 0 { return false }
            guard watched[0].revents != 0 else { continue }
            willRead()
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            let error = errno
            if count > 0 {
                consume(buffer[..<count])
            } else if count == 0 || (error != EINTR && error != EAGAIN) {
                return true
            } else {
                consume(buffer[..<0])  // nothing read after all: `willRead` is answered
            }
        }
    }
}
