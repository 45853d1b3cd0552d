import POSIXSync
import ConformanceProtocol

/// What the adapter's threads share: the lines read from stdout, how stdout ended, the exit status, the
/// kept stderr. Every `var` is guarded by `lock`; the reader threads and the exit watcher fill it,
/// ``AdapterProcess`` takes from it.
final class AdapterChannel: @unchecked Sendable {
    /// How stdout ended.
    enum OutputEnd: Sendable {
        case closed
        case failed(FramingError)
    }

    /// Past this many bytes of lines waiting to be received, the stdout reader stops reading, so an
    /// adapter that floods stdout blocks on its own writes instead of filling the runner's memory.
    static let maximumQueuedBytes = 16 * 1024 * 1024

    let lock = ConditionLock()

    private var lines: [String] = []
    private var nextLine = 0
    private var queuedBytes = 0
    /// Set once stdout is closed or broke the framing.
    private var outputEnd: OutputEnd?
    /// Set once stderr is closed: everything the adapter logged is in `stderr`.
    var stderrEnded = false
    /// Set once the process has ended; it stays a zombie until reaped, so its pid and group id stay taken.
    var exitStatus: AdapterProcess.ExitStatus?
    /// Set once the process has been reaped (or something else reaped it): its pid may be reused.
    var reaped = false
    var stderr: StderrRingBuffer
    /// The read end of the stderr pipe while its reader has not closed it; nil after. Read only with the lock held:
    /// the reader clears it, with the lock held, before it closes the descriptor.
    var stderrDescriptor: Int32?
    /// Set while the stderr reader has bytes it read and not appended yet.
    var stderrReading = false
    /// Reader threads that have not closed their descriptors yet.
    var runningReaders = 0
    /// Set when the process object goes away: readers stop waiting for room and leave.
    var stopping = false
    /// The group's guard (`ProcessLauncher.spawnGuard`) and the write end of its lifeline, until it is reaped.
    var groupGuard: (processID: Int32, lifeline: Int32)?

    init(stderrCapacity: Int) {
        stderr = StderrRingBuffer(capacity: stderrCapacity)
    }

    // MARK: Called with the lock held

    /// Queues lines read from stdout and, if the framing broke, that error after them.
    func enqueue(_ newLines: [String], failure: FramingError?) {
        lines.append(contentsOf: newLines)
        queuedBytes += newLines.reduce(0) { $0 + $1.utf8.count }
        if let failure, outputEnd == nil { outputEnd = .failed(failure) }
        lock.broadcast()
    }

    /// Records the end of stdout (unless the framing broke earlier).
    func endOutput(_ end: OutputEnd) {
        if outputEnd == nil { outputEnd = end }
        lock.broadcast()
    }

    var hasRoomForLines: Bool { queuedBytes <= Self.maximumQueuedBytes || stopping }

    /// Whether stdout reached its end of file (not a framing error): nothing more can come from it, whether or not
    /// the process still runs.
    var outputClosed: Bool {
        if case .closed = outputEnd { return true }
        return false
    }

    /// The next thing ``AdapterProcess/receive(timeout:)`` should return, or nil while there is none yet.
    func nextReceived() -> AdapterProcess.Received? {
        if nextLine < lines.count {
            let line = lines[nextLine]
            nextLine += 1
            queuedBytes -= line.utf8.count
            if nextLine == lines.count || nextLine >= 1024 {
                lines.removeFirst(nextLine)
                nextLine = 0
            }
            lock.broadcast()  // a reader may be waiting for room
            return .line(line)
        }
        switch outputEnd {
        case .failed(let error):
            return .framingError(error)
        case .closed:
            // The end only once the log is complete too, so a crash report always shows the last words.
            guard stderrEnded else { return nil }
            return exitStatus.map { .endOfStream($0) }
        case nil:
            return nil
        }
    }
}
