/// The last bytes of the adapter's stderr: a ring of fixed capacity that drops the oldest bytes.
struct StderrRingBuffer: Sendable {
    let capacity: Int
    private var storage: [UInt8]
    /// Where the oldest kept byte is, once the ring is full.
    private var start = 0
    /// Every byte ever appended, kept or dropped.
    private(set) var totalByteCount = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a ring buffer needs room for at least one byte")
        self.capacity = capacity
        storage = []
        storage.reserveCapacity(capacity)
    }

    /// Whether older bytes were dropped to make room.
    var hasDropped: Bool { totalByteCount > storage.count }

    mutating func append(_ bytes: some Collection<UInt8>) {
        totalByteCount += bytes.count
        for byte in bytes.suffix(capacity) {
            if storage.count < capacity {
                storage.append(byte)
            } else {
                storage[start] = byte
                start = (start + 1) % capacity
            }
        }
    }

    /// The kept bytes, oldest first.
    var bytes: [UInt8] {
        Array(storage[start...] + storage[..<start])
    }

    /// The kept bytes as text; bytes that are not UTF-8 become U+FFFD.
    var text: String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// The last `maxLines` lines, joined with `\n`. When older bytes were dropped, the first kept line is
    /// incomplete and left out (unless it is the only one).
    func tail(maxLines: Int) -> String {
        guard maxLines > 0 else { return "" }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        if hasDropped && lines.count > 1 { lines.removeFirst() }
        return lines.suffix(maxLines).joined(separator: "\n")
    }
}
