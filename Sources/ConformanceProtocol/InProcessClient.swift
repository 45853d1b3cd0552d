/// A client that runs inside the runner's process and is driven synchronously: `handle` runs it until it
/// has no runnable work left and returns what it sent. This is the EmbeddedChannel of the suite: the same
/// messages as the process connection, with no threads, pipes or timing involved.
public protocol InProcessClient: AnyObject {
    /// The client's `hello`.
    func start() -> [AdapterMessage]
    /// Delivers one message; returns every message the client sent until it was idle.
    func handle(_ message: RunnerMessage) -> [AdapterMessage]
}
