import ConformanceProtocol
import Testing

@Suite("JSONLineWriter")
struct JSONLineFramerWriterTests {
    @Test("a framed line is its UTF-8 followed by LF, and frames back to itself")
    func framedLineRoundTrips() throws {
        let line = "{\"type\":\"hello\",\"name\":\"Zoë €\"}"
        let bytes = try JSONLineWriter.frame(line)
        #expect(bytes == Array(line.utf8) + [0x0A])
        var framer = JSONLineFramer()
        #expect(try framer.feed(bytes) == [line])
        try framer.finish()
    }

    @Test("a line holding a line break is rejected with the break's offset", arguments: ["ab\ncd", "ab\rcd", "abc\r\n"])
    func lineBreaksAreRejected(line: String) {
        #expect(throws: JSONLineWriteError(.containsLineBreak, byteCount: 5, byteOffset: line.hasPrefix("abc") ? 3 : 2)) {
            _ = try JSONLineWriter.frame(line)
        }
    }

    @Test("a line over the limit is rejected; one at the limit is framed")
    func limitIsEnforced() throws {
        #expect(try JSONLineWriter.frame("1234", maximumLineLength: 4).count == 5)
        #expect(throws: JSONLineWriteError(.lineTooLong, byteCount: 5, limit: 4)) {
            _ = try JSONLineWriter.frame("12345", maximumLineLength: 4)
        }
    }

    @Test("error messages say what is wrong with the line")
    func errorDescriptions() {
        #expect(JSONLineWriteError(.containsLineBreak, byteCount: 5, byteOffset: 2).description
            == "a line to send contains a line break at byte 2; JSON lines must be on one line")
        #expect(JSONLineWriteError(.lineTooLong, byteCount: 5, limit: 4).description
            == "a line to send is 5 bytes, more than the maximum of 4 bytes")
    }
}
