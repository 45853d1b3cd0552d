import ConformanceProtocol
import Testing

@Suite("JSONLineFramer")
struct JSONLineFramerTests {
    @Test("LF and CRLF both end a line, and the terminator is not part of it")
    func bothTerminatorsEndALine() throws {
        var framer = JSONLineFramer()
        #expect(try framer.feed(Array("{\"a\":1}\r\n{\"b\":2}\n".utf8)) == ["{\"a\":1}", "{\"b\":2}"])
        try framer.finish()
    }

    @Test("a CR and its LF arriving in different feeds still make one CRLF")
    func crlfSplitAcrossFeeds() throws {
        var framer = JSONLineFramer()
        #expect(try framer.feed(Array("line\r".utf8)) == [])
        #expect(try framer.feed(Array("\n".utf8)) == ["line"])
        try framer.finish()
    }

    @Test("empty lines are skipped but still counted in line numbers")
    func emptyLinesAreSkippedButCounted() {
        var framer = JSONLineFramer()
        #expect(throws: FramingError(.invalidUTF8, line: 5, byteCount: 1)) {
            #expect(try framer.feed(Array("\n\r\nfirst\n\n".utf8)) == ["first"])
            _ = try framer.feed([0xC0, 0x0A])
        }
    }

    @Test("a line of exactly the maximum length is accepted")
    func lineAtTheLimitIsAccepted() throws {
        var framer = JSONLineFramer(maximumLineLength: 8)
        #expect(try framer.feed(Array("12345678\n12345678\r\n".utf8)) == ["12345678", "12345678"])
        try framer.finish()
    }

    @Test("a line over the limit fails as soon as the limit is crossed, not at its end")
    func overlongLineFailsWhenTheLimitIsCrossed() throws {
        let limit = 100
        var framer = JSONLineFramer(maximumLineLength: limit)
        var fed = 0
        // 7-byte chunks: the 15th chunk holds byte 101, the first byte past the limit.
        while fed + 7 <= limit {
            #expect(try framer.feed(Array(repeating: UInt8(ascii: "x"), count: 7)) == [])
            fed += 7
        }
        #expect(throws: FramingError(.lineTooLong, line: 1, byteCount: limit + 1, limit: limit)) {
            _ = try framer.feed(Array(repeating: UInt8(ascii: "x"), count: 7))
        }
        #expect(fed == 98)
    }

    @Test("one byte past the limit is held when it is a CR that may start CRLF")
    func carriageReturnPastTheLimitWaitsForItsLineFeed() throws {
        var framer = JSONLineFramer(maximumLineLength: 4)
        #expect(try framer.feed(Array("abcd\r".utf8)) == [])
        #expect(try framer.feed(Array("\n".utf8)) == ["abcd"])

        var other = JSONLineFramer(maximumLineLength: 4)
        #expect(try other.feed(Array("abcd\r".utf8)) == [])
        #expect(throws: FramingError(.lineTooLong, line: 1, byteCount: 6, limit: 4)) {
            _ = try other.feed(Array("e".utf8))
        }
    }

    @Test("lines completed before an error in the same feed are returned, and the error comes next")
    func linesBeforeAnErrorAreNotLost() throws {
        var framer = JSONLineFramer(maximumLineLength: 4)
        let expected = FramingError(.lineTooLong, line: 2, byteCount: 5, limit: 4)
        #expect(try framer.feed(Array("ok\ntoo long".utf8)) == ["ok"])
        #expect(framer.failure == expected)
        #expect(throws: expected) { _ = try framer.feed(Array("\n".utf8)) }
        #expect(throws: expected) { try framer.finish() }
    }

    @Test("invalid UTF-8 split across feeds is reported with its line number")
    func invalidUTF8SplitAcrossFeeds() throws {
        var framer = JSONLineFramer()
        #expect(try framer.feed(Array("{\"a\":1}\n{\"s\":\"".utf8) + [0xE2]) == ["{\"a\":1}"])
        #expect(try framer.feed([0x82]) == [])
        #expect(throws: FramingError(.invalidUTF8, line: 2, byteCount: 10)) {
            // E2 82 needs a third continuation byte; `"` is not one.
            _ = try framer.feed(Array("\"}\n".utf8))
        }
    }

    @Test("a multi-byte character split across feeds at every byte is decoded whole")
    func multiByteCharactersSplitAcrossFeeds() throws {
        let text = "é€😀🇫🇷"
        let bytes = Array((text + "\n").utf8)
        for cut in 1..<bytes.count {
            var framer = JSONLineFramer()
            #expect(try framer.feed(bytes[..<cut]) == [])
            #expect(try framer.feed(bytes[cut...]) == [text], "cut at byte \(cut)")
            try framer.finish()
        }
    }

    @Test("a last line without a terminator is a truncated line")
    func unterminatedLastLineIsTruncated() throws {
        var framer = JSONLineFramer()
        #expect(try framer.feed(Array("{\"a\":1}\n{\"b\"".utf8)) == ["{\"a\":1}"])
        #expect(throws: FramingError(.truncatedLine, line: 2, byteCount: 4)) { try framer.finish() }
    }

    @Test("the end of a stream after a line end, or of an empty stream, is fine")
    func cleanEndOfStream() throws {
        var framer = JSONLineFramer()
        try framer.finish()
        #expect(try framer.feed(Array("a\n\n".utf8)) == ["a"])
        try framer.finish()
    }

    @Test("after an error, every call throws that same error")
    func errorsAreSticky() {
        var framer = JSONLineFramer()
        let expected = FramingError(.invalidUTF8, line: 1, byteCount: 1)
        #expect(throws: expected) { _ = try framer.feed([0xFF, 0x0A]) }
        #expect(throws: expected) { _ = try framer.feed(Array("fine\n".utf8)) }
        #expect(throws: expected) { try framer.finish() }
        #expect(framer.failure == expected)
    }

    @Test("error messages name the line, the byte count and the limit")
    func errorDescriptions() {
        let tooLong = FramingError(.lineTooLong, line: 3, byteCount: 1_048_577, limit: 1_048_576)
        #expect(tooLong.description == "line 3 is too long: more than the maximum of 1048576 bytes (1048577 bytes read without a line end)")
        #expect(FramingError(.invalidUTF8, line: 7, byteCount: 12).description == "line 7 is not valid UTF-8 (12 bytes)")
        #expect(FramingError(.truncatedLine, line: 2, byteCount: 5).description == "the stream ended inside line 2: 5 bytes without a line end")
    }

    @Test("the default maximum line length is the protocol's 1 MiB")
    func defaultLimitIsOneMebibyte() throws {
        var framer = JSONLineFramer()
        #expect(framer.maximumLineLength == 1_048_576)
        let longest = String(repeating: "a", count: 1_048_576)
        #expect(try framer.feed(Array((longest + "\n").utf8)) == [longest])
        #expect(throws: FramingError(.lineTooLong, line: 2, byteCount: 1_048_577, limit: 1_048_576)) {
            _ = try framer.feed(Array((longest + "a").utf8))
        }
    }
}
