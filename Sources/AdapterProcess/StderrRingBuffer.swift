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

    /// Copies in at most two bulk writes, whatever the size of `bytes`: only its last `capacity` bytes matter.
    mutating func append(_ bytes: some Collection<UInt8>) {
        totalByteCount += bytes.count
        var kept = bytes.suffix(capacity)[...]
        if storage.count < capacity {
            let room = capacity - storage.count
            storage.append(contentsOf: kept.prefix(room))
            kept = kept.dropFirst(room)
        }
        while !kept.isEmpty {
            let run = min(kept.count, capacity - start)
            let end = kept.index(kept.startIndex, offsetBy: run)
            storage.replaceSubrange(start..<(start + run), with: kept[kept.startIndex..<end])
            kept = kept[end...]
            start = (start + run) % capacity
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
