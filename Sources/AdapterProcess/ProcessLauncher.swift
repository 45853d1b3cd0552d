#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts `/bin/sh -c COMMAND` with posix_spawn, in a process group of its own, with default signal
/// dispositions and an empty signal mask, and the given pipe ends as its stdin, stdout and stderr.
enum ProcessLauncher {
    static func spawn(
        commandLine: String,
        environment: [String: String]?,
        stdin: Int32,
        stdout: Int32,
        stderr: Int32,
        go: Int32
    ) throws(AdapterProcessError) -> pid_t {
        try spawnShell(goPrefix + commandLine, environment: environment, streams: (stdin, stdout, stderr), group: 0, go: go)
    }

    /// The descriptor an adapter's shell reads its go from (`go`, the read end of a pipe).
    static let goDescriptor: Int32 = 3

    /// Run before the adapter's command: the shell waits for a line on descriptor 3, which the runner writes once the
    /// group's guard is started, and exits if that pipe ends first (the runner died before it could start the
    /// guard), so no adapter ever runs unguarded; then it closes the descriptor, so the command never sees it.
    static let goPrefix = "read -r session_conformance_go <&3 || exit 1; exec 3<&-; "

    /// What a group's guard runs: it reads its stdin, the lifeline, to its end of file, which comes when every
    /// copy of the lifeline's write end is closed: when the runner closes it, or when the runner dies, however
    /// it dies (even by SIGKILL, which no handler sees). It then sends SIGKILL to its own process group, the
    /// adapter's. Being a member, it keeps the group id taken, so the kill cannot reach a group that reused it.
    static let guardScript = "read line; kill -KILL 0"

    /// Starts the guard of `group` (an adapter's process group, whose leader is not reaped yet): `/bin/sh`
    /// running ``guardScript`` in that group, its stdin `lifeline` (a pipe's read end), its stdout and stderr
    /// /dev/null. Linux's PR_SET_PDEATHSIG would need code in the child before exec, which posix_spawn cannot
    /// run, and it fires when the spawning *thread* ends; a guard process needs neither and works on macOS too.
    static func spawnGuard(group: pid_t, lifeline: Int32) throws(AdapterProcessError) -> pid_t {
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { throw AdapterProcessError(.spawnFailed, systemError: errno, detail: "open /dev/null failed") }
        defer { closeDescriptor(null) }
        return try spawnShell(guardScript, environment: [:], streams: (lifeline, null, null), group: group, go: nil)
    }

    /// `/bin/sh -c script` in process group `group` (0: a group of its own).
    private static func spawnShell(
        _ script: String,
        environment: [String: String]?,
        streams: (stdin: Int32, stdout: Int32, stderr: Int32),
        group: pid_t,
        go: Int32?
    ) throws(AdapterProcessError) -> pid_t {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        // dup2 clears close-on-exec on the copies; the originals (3 and above) close at exec.
        posix_spawn_file_actions_adddup2(&actions, streams.stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, streams.stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, streams.stderr, 2)
        // After the three streams, so a source numbered 3 has been copied already (`go` itself is above 3).
        if let go { posix_spawn_file_actions_adddup2(&actions, go, goDescriptor) }

        // An adapter gets a group of its own (its id is the child's pid), so a kill reaches its children too.
        var flags = Int32(POSIX_SPAWN_SETPGROUP) | Int32(POSIX_SPAWN_SETSIGMASK) | Int32(POSIX_SPAWN_SETSIGDEF)
        #if canImport(Darwin)
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))
        posix_spawnattr_setpgroup(&attributes, group)
        // The runner ignores SIGPIPE; the adapter must not inherit that, nor any other ignored signal.
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        var noSignal = sigset_t()
        sigemptyset(&noSignal)
        posix_spawnattr_setsigmask(&attributes, &noSignal)

        let arguments = CStringArray(["/bin/sh", "-c", script])
        let environmentStrings = environment.map { CStringArray($0.map { "\($0.key)=\($0.value)" }.sorted()) }
        var processID: pid_t = 0
        let result = arguments.withPointers { argv in
            if let environmentStrings {
                return environmentStrings.withPointers { envp in
                    posix_spawn(&processID, "/bin/sh", &actions, &attributes, argv, envp)
                }
            }
            return posix_spawn(&processID, "/bin/sh", &actions, &attributes, argv, currentEnvironment())
        }
        guard result == 0 else {
            throw AdapterProcessError(.spawnFailed, systemError: result, detail: "posix_spawn /bin/sh -c \(script)")
        }
        return processID
    }

    private static func currentEnvironment() -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        #if canImport(Darwin)
        return _NSGetEnviron().pointee
        #else
        return environ
        #endif
    }
}

/// NUL-terminated copies of strings, as the `char *const []` that exec-style calls take.
private final class CStringArray {
    private let pointers: [UnsafeMutablePointer<CChar>?]

    init(_ strings: [String]) {
        pointers = strings.map { strdup($0) } + [nil]
    }

    deinit {
        for pointer in pointers { free(pointer) }
    }

    func withPointers<Result>(_ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result) -> Result {
        pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

/// Sends `signal` to the process group `processID` leads and to the process itself, in case it moved to
/// another group. Only call while the process is unreaped, so the id cannot name another process.
func signalProcessAndGroup(_ processID: pid_t, _ signal: Int32) {
    _ = killpg(processID, signal)
    _ = kill(processID, signal)
}

/// Waits for the child `processID` to end and reaps it (retried when a signal interrupts the wait).
func reap(_ processID: pid_t) {
    var status: Int32 = 0
    while waitpid(processID, &status, 0) < 0 && errno == EINTR {}
}

/// SIGKILL to `memberID` alone, when it is another process of `groupID`'s group (a child the adapter forked);
/// false, and no signal, for any other process.
func killGroupMember(_ memberID: pid_t, of groupID: pid_t) -> Bool {
    guard isGroupMember(memberID, of: groupID) else { return false }
    return kill(memberID, SIGKILL) == 0
}

func isGroupMember(_ memberID: pid_t, of groupID: pid_t) -> Bool {
    memberID > 0 && memberID != groupID && getpgid(memberID) == groupID
}
