import JSONCore
import Testing

@Suite("JSON values")
struct JSONCoreTests {
    @Test("the writer sorts keys and escapes what JSON requires")
    func writerIsDeterministic() {
        let value: JSONValue = ["b": 1, "a": ["x\n\"y\"", .null, true, 1.5], "c": ["\u{01}": "\\"]]
        #expect(value.jsonText == #"{"a":["x\n\"y\"",null,true,1.5],"b":1,"c":{"\u0001":"\\"}}"#)
    }

    @Test("parsing what the writer wrote gives the same value")
    func roundTrip() throws {
        let value: JSONValue = ["list": [1, -2, 3.25, "é→😀", false], "nested": ["empty": [:], "none": []]]
        #expect(try JSONParser.parse(value.jsonText) == value)
    }

    @Test("escapes decode, surrogate pairs included")
    func escapes() throws {
        #expect(try JSONParser.parse(#""a\u00e9\ud83d\ude00\/\t""#) == .string("aé😀/\t"))
    }

    @Test("a string decodes the same whether it has escapes or not, and where they are", arguments: [
        "", "plain", "é→😀", "a\"b", "\\", "tab\there", "😀\n", "\u{01}end", "mixed é\"😀\\/\u{7F}",
    ])
    func stringsDecode(text: String) throws {
        let value = JSONValue.string(text)
        #expect(try JSONParser.parse(value.jsonText) == value)
        #expect(try JSONParser.parse("[" + value.jsonText + "," + value.jsonText + "]") == [value, value])
    }

    @Test("malformed text is rejected with the offset of the problem", arguments: [
        ("{\"a\":1,}", 7), ("[1 2]", 3), ("{\"a\":1,\"a\":2}", 7), ("\"open", 5), ("tru", 0), ("1 2", 2),
        ("\"\\ud800\"", 7), ("01", 1), ("\"a\\x\"", 4), ("\"a\\n\u{01}\"", 4), ("\"é\\", 4),
    ])
    func rejectsMalformed(text: String, offset: Int) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
        do {
            _ = try JSONParser.parse(text)
        } catch {
            #expect(error.offset == offset, "\(text): \(error)")
        }
    }

    @Test("nesting past the bound is an error, not a stack overflow")
    func boundedNesting() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
    }

    @Test("the pretty writer indents, sorts keys, keeps flat containers on one line, and parses back")
    func prettyText() throws {
        let value: JSONValue = ["b": [1, ["x": nil, "y": [2]], ["z": 1, "a": "b"]], "a": "q\"", "e": [], "o": [:], "l": [1, "2"]]
        #expect(value.prettyJSONText == """
            {
              "a": "q\\"",
              "b": [
                1,
                {
                  "x": null,
                  "y": [2]
                },
                {"a":"b","z":1}
              ],
              "e": [],
              "l": [1,"2"],
              "o": {}
            }

            """)
        #expect(try JSONParser.parse(value.prettyJSONText) == value)
    }
}
