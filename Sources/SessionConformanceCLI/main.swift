import Foundation
import SessionConformanceCommands

/// Writes to the process's standard output and error.
struct ProcessConsole: Console {
    func out(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
    func err(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
    func outReport(_ text: String) throws { try StandardOutput.write(text) }
    var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}

SessionConformance.trackAdapterDescendants()
let code = SessionConformance.main(arguments: Array(CommandLine.arguments.dropFirst()), console: ProcessConsole(),
                                   program: SessionConformance.programName(argv0: CommandLine.arguments.first ?? ""))
exit(code.rawValue)
