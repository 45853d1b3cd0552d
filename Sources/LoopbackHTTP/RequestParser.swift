/// Reads one HTTP/1.x request from the front of a connection's buffer. Pure: the server feeds it what it
/// has read so far and acts on the outcome.
enum RequestParser {
    struct Parsed: Equatable {
        var method: String
        var target: String
        var version: String
        var headers: [HTTPHeaderField]
        var body: [UInt8]
        /// Bytes of the buffer the request took.
        var consumed: Int
        /// Whether the connection stays open after the response (HTTP/1.1 unless `connection: close`).
        var keepAlive: Bool
    }

    enum Outcome: Equatable {
        case incomplete
        case request(Parsed)
        /// The request is refused with this status; the connection cannot be read further.
        case reject(status: Int, reason: String)
    }

    private static let cr: UInt8 = 13
    private static let lf: UInt8 = 10

    static func parse(_ buffer: ArraySlice<UInt8>, limits: LoopbackLimits) -> Outcome {
        var start = buffer.startIndex
        // An empty line before the request line is ignored (RFC 9112, 2.2).
        while start + 1 < buffer.endIndex, buffer[start] == cr, buffer[start + 1] == lf { start += 2 }
        // Find the end of the header section, refusing a bare LF on the way.
        var lineStart = start
        var lines: [ArraySlice<UInt8>] = []
        var headerEnd: Int?
        var index = start
        while index < buffer.endIndex {
            if buffer[index] == lf {
                guard index > start, buffer[index - 1] == cr else {
                    return .reject(status: 400, reason: "a line ends with a bare LF")
                }
                let line = buffer[lineStart..<(index - 1)]
                if lines.isEmpty && line.count > limits.maxRequestLineBytes {
                    return .reject(status: 414, reason: "the request line is longer than \(limits.maxRequestLineBytes) bytes")
                }
                if line.isEmpty {
                    headerEnd = index + 1
                    break
                }
                lines.append(line)
                if lines.count > limits.maxHeaderCount + 1 {
                    return .reject(status: 431, reason: "more than \(limits.maxHeaderCount) header fields")
                }
                lineStart = index + 1
            }
            index += 1
            if index - start > limits.maxHeaderBytes {
                if lines.isEmpty {
                    return .reject(status: 414, reason: "the request line is longer than \(limits.maxRequestLineBytes) bytes")
                }
                return .reject(status: 431, reason: "the header section is larger than \(limits.maxHeaderBytes) bytes")
            }
        }
        guard let headerEnd else {
            if lines.isEmpty && buffer.endIndex - lineStart > limits.maxRequestLineBytes {
                return .reject(status: 414, reason: "the request line is longer than \(limits.maxRequestLineBytes) bytes")
            }
            return .incomplete
        }

        // The request line: method SP target SP version.
        guard let requestLine = String(validating: lines[0], as: UTF8.self) else {
            return .reject(status: 400, reason: "the request line is not UTF-8")
        }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].utf8.allSatisfy(isTokenCharacter) else {
            return .reject(status: 400, reason: "malformed request line")
        }
        let method = String(parts[0])
        let target = String(parts[1])
        let version = String(parts[2])
        guard version.hasPrefix("HTTP/") else { return .reject(status: 400, reason: "malformed request line") }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .reject(status: 505, reason: "unsupported protocol version \(version)")
        }
        guard target.hasPrefix("/"), !target.utf8.contains(where: { $0 <= 32 || $0 == 127 }) else {
            return .reject(status: 400, reason: "the request target is not a path")
        }

        // Header fields: name ":" OWS value OWS; no whitespace before the colon, no folded lines.
        var headers: [HTTPHeaderField] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                return .reject(status: 400, reason: "a header line without a colon")
            }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else {
                return .reject(status: 400, reason: "an invalid header name")
            }
            var value = line[(colon + 1)...]
            while let first = value.first, first == 32 || first == 9 { value = value.dropFirst() }
            while let last = value.last, last == 32 || last == 9 { value = value.dropLast() }
            guard !value.contains(where: { ($0 < 32 && $0 != 9) || $0 == 127 }) else {
                return .reject(status: 400, reason: "a control character in a header value")
            }
            headers.append(HTTPHeaderField(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        let values = { (name: String) in headers.filter { $0.name.lowercased() == name }.map(\.value) }

        if version == "HTTP/1.1" && values("host").count != 1 {
            return .reject(status: 400, reason: "an HTTP/1.1 request needs exactly one host header")
        }
        if !values("transfer-encoding").isEmpty {
            return .reject(status: 411, reason: "transfer-encoding is not supported; send content-length")
        }
        var length = 0
        let lengths = values("content-length").flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingSpaces }
        if !lengths.isEmpty {
            guard Set(lengths).count == 1, let text = lengths.first, !text.isEmpty, text.count <= 18,
                  text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(text) else {
                return .reject(status: 400, reason: "an invalid content-length")
            }
            length = value
        }
        if length > limits.maxBodyBytes {
            return .reject(status: 413, reason: "the body of \(length) bytes is larger than \(limits.maxBodyBytes)")
        }
        guard buffer.endIndex - headerEnd >= length else { return .incomplete }

        let connection = values("connection").joined(separator: ",").lowercased()
            .split(separator: ",").map { String($0).trimmingSpaces }
        let keepAlive = version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
        return .request(Parsed(method: method, target: target, version: version, headers: headers,
                               body: Array(buffer[headerEnd..<(headerEnd + length)]),
                               consumed: headerEnd + length - buffer.startIndex, keepAlive: keepAlive))
    }

    /// RFC 9110 `tchar`.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while scalars.first == " " || scalars.first == "\t" { scalars = scalars.dropFirst() }
        while scalars.last == " " || scalars.last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
