extension YAMLScalar {
    /// Whether `text` is written as a whole number (an optional sign, then ASCII digits), whatever its size:
    /// `99999999999999999999` is an integer too large for `Int`, not a fraction.
    public static func isIntegerText(_ text: String) -> Bool {
        let body = text.first == "-" || text.first == "+" ? text.dropFirst() : Substring(text)
        return !body.isEmpty && body.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
