import ConformanceProtocol
import JSONCore

/// What one case's trace may hold, so an adapter cannot grow the runner without bound: past either cap the
/// case ends with an error that says which. Generous for real cases (the largest sends 1,000 requests and
/// records a few thousand events); reports keep fewer (`--trace-limit`).
public enum TraceBudget {
    /// Events of one case, sent and received.
    public static let maximumEvents = 200_000
    /// Bytes of the messages received in one case, about as the adapter wrote them.
    public static let maximumReceivedBytes = 32 * 1024 * 1024

    /// What was exceeded, in words for "the adapter sent more than ...", or nil within the budget.
    static func overflow(events: Int, receivedBytes: Int) -> String? {
        if events > maximumEvents { return "\(maximumEvents) messages" }
        if receivedBytes > maximumReceivedBytes { return "\(maximumReceivedBytes / (1024 * 1024)) MiB" }
        return nil
    }
}

extension AdapterMessage {
    /// About the size of the message's JSON line: every string and key, plus a little per value.
    var approximateSize: Int { json.approximateSize }
}

extension JSONValue {
    /// About the size of the value as JSON text: every string and key, plus a little per value.
    var approximateSize: Int {
        switch self {
        case .null, .bool, .int, .double: return 8
        case .string(let text): return text.utf8.count + 2
        case .array(let items): return items.reduce(2) { $0 + $1.approximateSize + 1 }
        case .object(let object): return object.reduce(2) { $0 + $1.key.utf8.count + 4 + $1.value.approximateSize }
        }
    }
}
