/// Where a command writes. The CLI passes the process's streams; tests pass a buffer.
public protocol Console: Sendable {
    func out(_ text: String)
    func err(_ text: String)
    /// Whether standard error is a terminal, for colour and progress lines.
    var isTerminal: Bool { get }
}
