import POSIXSync
import ConformanceProtocol
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An adapter process: a command line run by `/bin/sh -c`, spoken to in JSON lines on its stdin and
/// stdout (docs/adapter-protocol.md), its stderr kept as its log.
///
/// The process starts in a process group of its own, so ``kill()`` reaches everything it started. It is
/// never left behind: dropping the object kills the group and reaps the process (never a zombie, never a
/// running child), and every file descriptor is closed by the time `deinit` returns.
///
/// Threads: one reads stdout into a queue of lines, one reads stderr into a 64 KiB ring, one waits for
/// the process to end. Every method may be called from any thread.
///
/// Determinism: what ``receive(timeout:)`` returns depends only on what the adapter wrote, never on how
/// the bytes were chunked by the pipe, except for `.timedOut`. The timeout is wall-clock time by nature
/// (it detects a hang); it only ever decides error verdicts and must not order anything.
public final class AdapterProcess: Sendable {
    /// How many bytes of stderr are kept: the last 64 KiB.
    public static let stderrCapacity = 64 * 1024

    /// The command line, as given.
    public let commandLine: String
    /// The process id of the `/bin/sh` that runs the command line (usually the adapter itself, which
    /// the shell execs into); also the id of the process group.
    public let processID: Int32
    /// The most bytes a line may have on stdout or stdin, without its terminator.
    public let maximumLineLength: Int

    private let channel: AdapterChannel
    private let input: AdapterInput
    /// A byte written here wakes the reader threads to stop. Closed in deinit, after they are gone.
    private let stopPipe: PipeDescriptors

    /// Starts `/bin/sh -c commandLine`.
    ///
    /// - Parameters:
    ///   - environment: the process's whole environment; nil inherits the runner's.
    ///   - maximumLineLength: the most bytes a line may have on stdout or stdin, 1 MiB by default.
    /// - Throws: `spawnFailed` when the pipes or the process cannot be created. A command that does not
    ///   exist is not an error here: the shell reports it on stderr and exits with status 127.
    public init(
        commandLine: String,
        environment: [String: String]? = nil,
        maximumLineLength: Int = JSONLineFramer.defaultMaximumLineLength
    ) throws(AdapterProcessError) {
        BrokenPipeSignal.ignore()
        self.commandLine = commandLine
        self.maximumLineLength = maximumLineLength

        var created: [PipeDescriptors] = []
        let pipes: (stdin: PipeDescriptors, stdout: PipeDescriptors, stderr: PipeDescriptors, stop: PipeDescriptors)
        let processID: pid_t
        // The adapter's go: written once its guard runs (`ProcessLauncher.goPrefix`). Numbered above the descriptor
        // the child gets it as, so the spawn's dup2 onto it is never a dup2 onto itself, which keeps close-on-exec.
        let go: PipeDescriptors
        do throws(AdapterProcessError) {
            for _ in 0..<4 { created.append(try PipeDescriptors.make()) }
            pipes = (created[0], created[1], created[2], created[3])
            go = try PipeDescriptors.make(lowest: ProcessLauncher.goDescriptor + 1)
            created.append(go)
            processID = try AdapterRegistry.spawning { () throws(AdapterProcessError) -> pid_t in
                try ProcessLauncher.spawn(
                    commandLine: commandLine,
                    environment: environment,
                    stdin: pipes.stdin.readEnd,
                    stdout: pipes.stdout.writeEnd,
                    stderr: pipes.stderr.writeEnd,
                    go: go.readEnd
                )
            }
        } catch {
            for pipe in created { pipe.closeBoth() }
            throw error
        }
        closeDescriptor(go.readEnd)
        // The child's ends now live in the child; without closing ours, stdout would never reach end of file.
        closeDescriptor(pipes.stdin.readEnd)
        closeDescriptor(pipes.stdout.writeEnd)
        closeDescriptor(pipes.stderr.writeEnd)

        self.processID = processID
        channel = AdapterChannel(stderrCapacity: Self.stderrCapacity)
        do throws(AdapterProcessError) {
            channel.groupGuard = try Self.startGuard(group: processID)
        } catch {
            closeDescriptor(go.writeEnd)
            signalProcessAndGroup(processID, SIGKILL)
            reap(processID)
            AdapterRegistry.reaped(processID)
            closeDescriptor(pipes.stdin.writeEnd)
            closeDescriptor(pipes.stdout.readEnd)
            closeDescriptor(pipes.stderr.readEnd)
            pipes.stop.closeBoth()
            throw error
        }
        // The guard runs: the adapter may start its command.
        var line: UInt8 = 10
        _ = write(go.writeEnd, &line, 1)
        closeDescriptor(go.writeEnd)
        input = AdapterInput(descriptor: pipes.stdin.writeEnd)
        stopPipe = pipes.stop
        ExitWatcher.start(processID: processID, channel: channel)
        OutputReaders.startStdout(
            pipes.stdout.readEnd, stopPipe: stopPipe.readEnd, channel: channel, maximumLineLength: maximumLineLength
        )
        OutputReaders.startStderr(pipes.stderr.readEnd, stopPipe: stopPipe.readEnd, channel: channel)
    }

    /// Starts the guard that kills the group when the runner dies (`ProcessLauncher.spawnGuard`); returns its
    /// pid and the lifeline's write end, which only this process holds (close-on-exec).
    private static func startGuard(group: pid_t) throws(AdapterProcessError) -> (processID: Int32, lifeline: Int32) {
        let lifeline = try PipeDescriptors.make()
        let guardID: pid_t
        do throws(AdapterProcessError) {
            guardID = try AdapterRegistry.spawningGuard { () throws(AdapterProcessError) -> pid_t in
                try ProcessLauncher.spawnGuard(group: group, lifeline: lifeline.readEnd)
            }
        } catch {
            lifeline.closeBoth()
            throw error
        }
        closeDescriptor(lifeline.readEnd)
        return (guardID, lifeline.writeEnd)
    }

    deinit {
        _ = killAndReap(drainingStderr: false)
        input.close()
        // Readers normally stop at end of file once the group is dead; a descendant that left the group
        // could still hold the pipes open, so wake them through the stop pipe and wait until they closed
        // their descriptors.
        channel.lock.withLock {
            channel.stopping = true
            channel.lock.broadcast()
        }
        _ = [UInt8(1)].withUnsafeBytes { writeDescriptor(stopPipe.writeEnd, $0) }
        channel.lock.withLock {
            _ = channel.lock.wait(until: nil) { channel.runningReaders == 0 }
        }
        stopPipe.closeBoth()
    }

    // MARK: stdin

    /// Writes `line` and a `\n` to the adapter's stdin.
    ///
    /// - Parameter timeout: how long to wait for the adapter to make room in the pipe; nil waits as long
    ///   as it takes. Wall-clock time, like every timeout here: it only detects a hang.
    /// - Throws: `invalidLine` when the line contains a line break or is over the limit (nothing is
    ///   written); `brokenPipe` when the adapter closed its stdin or ended; `sendTimedOut`;
    ///   `inputClosed` after ``closeInput()``. After a failed write every later one throws the same error.
    public func send(line: String, timeout: Duration? = nil) throws(AdapterProcessError) {
        let bytes: [UInt8]
        do throws(JSONLineWriteError) {
            bytes = try JSONLineWriter.frame(line, maximumLineLength: maximumLineLength)
        } catch {
            throw AdapterProcessError(.invalidLine, detail: error.description)
        }
        try input.write(bytes, timeout: timeout)
    }

    /// Writes several lines at once, each followed by `\n`, in one write where the pipe allows: the runner
    /// sends a batch of replies and a barrier together. Nothing is written if any line is invalid.
    public func send(lines: [String], timeout: Duration? = nil) throws(AdapterProcessError) {
        var bytes: [UInt8] = []
        for line in lines {
            do throws(JSONLineWriteError) {
                bytes += try JSONLineWriter.frame(line, maximumLineLength: maximumLineLength)
            } catch {
                throw AdapterProcessError(.invalidLine, detail: error.description)
            }
        }
        guard !bytes.isEmpty else { return }
        try input.write(bytes, timeout: timeout)
    }

    /// Closes the adapter's stdin: it reads end of file, its signal to finish.
    public func closeInput() {
        input.close()
    }

    // MARK: stdout

    /// The next line from the adapter's stdout, waiting up to `timeout` for it.
    ///
    /// Lines come in the order written. Once stdout ends, the end is returned on every later call:
    /// `.endOfStream` with the exit status when it closed cleanly (this waits, within the timeout, for
    /// stderr to close and the process to end too), `.framingError` when its bytes broke the framing.
    ///
    /// The timeout is wall-clock time: `.timedOut` means the adapter hangs, and only ever decides an
    /// error verdict. A zero timeout only looks at what has arrived already.
    public func receive(timeout: Duration) -> Received {
        let deadline = MonotonicDeadline.after(timeout)
        return channel.lock.withLock {
            var received: Received?
            _ = channel.lock.wait(until: deadline) {
                received = channel.nextReceived()
                return received != nil
            }
            return received ?? .timedOut
        }
    }

    /// Whether the adapter's stdout has reached its end of file, even if the process still runs or lines are still
    /// to be received. Does not wait. (A process that closed its stdout and runs on never sends another line.)
    public var outputClosed: Bool {
        channel.lock.withLock { channel.outputClosed }
    }

    // MARK: stderr

    /// The last `maxLines` lines of the adapter's stderr (of the last 64 KiB), joined with `\n`; bytes
    /// that are not UTF-8 become U+FFFD. What has been read so far: complete once ``receive(timeout:)``
    /// returned `.endOfStream`, or after ``kill()``.
    public func stderrTail(maxLines: Int) -> String {
        channel.lock.withLock { channel.stderr.tail(maxLines: maxLines) }
    }

    /// All the stderr that is kept: the last 64 KiB, as text (bytes that are not UTF-8 become U+FFFD).
    /// See ``stderrByteCount`` for whether older output was dropped.
    public var stderrAll: String {
        channel.lock.withLock { channel.stderr.text }
    }

    /// What the adapter wrote to stderr after `mark` (a `stderrByteCount` read earlier), as far as it is kept.
    public func stderr(since mark: Int) -> String {
        channel.lock.withLock {
            let kept = channel.stderr.bytes
            let dropped = channel.stderr.totalByteCount - kept.count
            return String(decoding: kept.dropFirst(max(0, mark - dropped)), as: UTF8.self)
        }
    }

    /// Waits, up to `timeout`, until what the adapter had written to stderr when this was called has been read into
    /// the kept log: the stderr pipe is empty and its reader holds no chunk it did not append. Returns whether it got
    /// there. A log read after an answer the adapter wrote after its log lines then has those lines, even when the
    /// reader thread had not run yet (it shares a CPU with the caller, `CPUPinning`). An adapter that keeps writing
    /// may never leave the pipe empty: the wait ends at `timeout`.
    @discardableResult
    public func syncStderr(timeout: Duration) -> Bool {
        let deadline = MonotonicDeadline.after(timeout)
        return channel.lock.withLock {
            channel.lock.wait(until: deadline) {
                guard let descriptor = channel.stderrDescriptor, !channel.stderrEnded else { return true }
                if channel.stderrReading { return false }
                var pending: Int32 = 0
                // The descriptor stays open while the lock is held: the reader closes it only after clearing it.
                return ioctl(descriptor, UInt(FIONREAD), &pending) != 0 || pending == 0
            }
        }
    }

    /// How many bytes the adapter has written to stderr in all, kept or dropped.
    public var stderrByteCount: Int {
        channel.lock.withLock { channel.stderr.totalByteCount }
    }

    // MARK: Ending

    /// How the process ended, or nil while it runs. Does not wait.
    public var exitStatus: ExitStatus? {
        channel.lock.withLock { channel.exitStatus }
    }

    /// How long ``kill()`` waits, after the process group is dead, for the rest of stderr to be read.
    /// Normally stderr ends at once; only a descendant that left the group can hold it open.
    static let stderrDrainTime: Duration = .seconds(2)

    /// Sends SIGKILL to the process and its process group, waits for the process to end and reaps it,
    /// then waits (briefly) until stderr is read to its end, so ``stderrTail(maxLines:)`` shows the
    /// adapter's last words. Returns how the process ended (`.signalled(9)` unless it had ended
    /// already). Safe to call more than once.
    @discardableResult
    public func kill() -> ExitStatus {
        killAndReap(drainingStderr: true)
    }

    /// Whether `memberID` is another live process of this process's group: a client instance the adapter forked.
    public func isForkedInstance(_ memberID: Int32) -> Bool {
        channel.lock.withLock {
            guard !channel.reaped, channel.exitStatus == nil, memberID != channel.groupGuard?.processID else { return false }
            return isGroupMember(memberID, of: processID)
        }
    }

    /// Ends one client instance the adapter forked (the `fork` capability): SIGKILL to `memberID` alone, which
    /// must be another process of this process's group; the adapter itself runs on and reaps it. False, and no
    /// signal, when `memberID` is not such a process or the adapter has ended.
    public func killForkedInstance(_ memberID: Int32) -> Bool {
        channel.lock.withLock {
            // While the adapter is unreaped, its group id cannot name another group.
            guard !channel.reaped, channel.exitStatus == nil, memberID != channel.groupGuard?.processID else { return false }
            return killGroupMember(memberID, of: processID)
        }
    }

    private func killAndReap(drainingStderr: Bool) -> ExitStatus {
        channel.lock.withLock {
            if !channel.reaped {
                // Still unreaped, the process (alive or a zombie) holds its pid and group id: neither can
                // name another process yet.
                signalProcessAndGroup(processID, SIGKILL)
            }
            _ = channel.lock.wait(until: nil) { channel.exitStatus != nil }
            if !channel.reaped {
                reap(processID)
                channel.reaped = true
                AdapterRegistry.reaped(processID)
                // Descendants that left the group were orphaned by this kill; with tracking on, they are ours.
                AdapterRegistry.sweepOrphans()
            }
            reapGuard()
            if drainingStderr {
                _ = channel.lock.wait(until: .after(Self.stderrDrainTime)) { channel.stderrEnded }
            }
            return channel.exitStatus ?? .unknown
        }
    }

    /// Closes the lifeline, so the guard kills what is left of the group (itself at least) and ends, and reaps it.
    /// Called with the lock held, once the adapter is reaped.
    private func reapGuard() {
        guard let (guardID, lifeline) = channel.groupGuard else { return }
        channel.groupGuard = nil
        closeDescriptor(lifeline)
        reap(guardID)
        AdapterRegistry.reaped(guardID)
    }

    /// Closes stdin, waits up to `grace` for the process to end on its own, then kills what is left of
    /// its process group and reaps it. Returns how the process ended: its own exit status when it
    /// ended within the grace period, `.signalled(9)` otherwise.
    @discardableResult
    public func terminate(grace: Duration) -> ExitStatus {
        input.close()
        let deadline = MonotonicDeadline.after(grace)
        channel.lock.withLock {
            _ = channel.lock.wait(until: deadline) { channel.exitStatus != nil }
        }
        return kill()
    }
}
