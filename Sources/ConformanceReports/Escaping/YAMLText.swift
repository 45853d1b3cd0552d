/// Client text in YAML (TAP's diagnostic blocks, `--write-expected-failures`): a double-quoted scalar on one
/// line, in which every character YAML does not allow raw, or a reader should not be shown raw (controls,
/// C1, bidirectional overrides, noncharacters such as U+FFFE), is a `\uXXXX` escape, which YAML reads back.
public enum YAMLText {
    public static func quoted(_ text: String) -> String {
        "\"" + UnsafeText.map(text, ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\t": "\\t"]) { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        } + "\""
    }
}
