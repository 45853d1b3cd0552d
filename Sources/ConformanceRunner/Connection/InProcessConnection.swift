import ConformanceProtocol

/// Connects the runner to an `InProcessClient`.
public final class InProcessConnection: AdapterConnection {
    private var client: (any InProcessClient)?
    private var outbox: [AdapterMessage] = []
    private var nextIndex = 0

    public init(_ client: any InProcessClient) {
        self.client = client
        outbox = client.start()
    }

    public func send(_ message: RunnerMessage) throws(AdapterFailure) {
        guard let client else { throw AdapterFailure(.notRunning, "the client was killed") }
        outbox.append(contentsOf: client.handle(message))
    }

    public func receive() throws(AdapterFailure) -> AdapterMessage {
        guard nextIndex < outbox.count else {
            // An in-process client answers everything synchronously; waiting for more would wait forever.
            throw AdapterFailure(.hung, "the in-process client sent nothing more while the runner waited")
        }
        defer {
            nextIndex += 1
            if nextIndex > 1024 {
                outbox.removeFirst(nextIndex)
                nextIndex = 0
            }
        }
        return outbox[nextIndex]
    }

    public func kill() {
        client = nil
        outbox = []
        nextIndex = 0
    }

    public var capturedLog: String { "" }
}

/// Launches a fresh in-process client from a factory.
public struct InProcessLauncher: AdapterLauncher {
    public let description: String
    private let make: @Sendable () -> any InProcessClient

    public init(description: String, make: @escaping @Sendable () -> any InProcessClient) {
        self.description = description
        self.make = make
    }

    public func launch() throws(AdapterFailure) -> any AdapterConnection {
        InProcessConnection(make())
    }
}
