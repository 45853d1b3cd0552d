/// A command line the tool cannot act on. Printed with the command's usage and, where possible, a hint.
public struct UsageError: Error, Sendable, Equatable {
    public let message: String
    public let hint: String?

    public init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }
}
