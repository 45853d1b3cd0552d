#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A thread that waits for the adapter process to end and records its status, without reaping it: the
/// zombie keeps its pid and process group id taken until ``AdapterProcess`` reaps it, so a kill of the
/// group can never reach an unrelated process that was given the same id.
enum ExitWatcher {
    static func start(processID: pid_t, channel: AdapterChannel) {
        let thread = Thread {
            let status = waitWithoutReaping(processID)
            channel.lock.withLock {
                channel.exitStatus = status
                if status == .unknown { channel.reaped = true }
                channel.lock.broadcast()
            }
        }
        thread.name = "adapter-exit"
        thread.start()
    }

    private static func waitWithoutReaping(_ processID: pid_t) -> AdapterProcess.ExitStatus {
        var info = siginfo_t()
        while waitid(P_PID, id_t(processID), &info, WEXITED | WNOWAIT) != 0 {
            if errno != EINTR { return .unknown }
        }
        #if canImport(Darwin)
        let status = info.si_status
        #else
        let status = info._sifields._sigchld.si_status
        #endif
        return info.si_code == Int32(CLD_EXITED) ? .exited(status) : .signalled(status)
    }
}
