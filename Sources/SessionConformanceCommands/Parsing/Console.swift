import Foundation

/// Where a command writes. The CLI passes the process's streams; tests pass a buffer.
public protocol Console: Sendable {
    func out(_ text: String)
    func err(_ text: String)
    /// Whether standard error is a terminal, for the live progress line.
    var isTerminal: Bool { get }
    /// Whether to colour what is written: on a terminal, unless NO_COLOR is set.
    var colors: Bool { get }
}

extension Console {
    public var colors: Bool { ConsoleStyle.colorsWanted(isTerminal: isTerminal, environment: ProcessInfo.processInfo.environment) }
}
