internal import CYAML

/// Owns a libyaml parser, its input buffer and the current event; `deinit` frees all three.
/// Marks are converted to 1-based `SourceLocation`s here, at the C boundary, and nowhere else.
final class LibYAMLParser {
    /// One parsed event, copied out of C into Swift values.
    enum Event {
        case streamStart
        case streamEnd
        case documentStart
        case documentEnd
        case alias
        case scalar(YAMLScalar, anchor: Bool, tag: String?)
        case sequenceStart(anchor: Bool, tag: String?)
        case sequenceEnd
        case mappingStart(anchor: Bool, tag: String?)
        case mappingEnd
    }

    struct ParseError: Error {
        let message: String
        let location: SourceLocation
        var notes: [Diagnostic.Note] = []
    }

    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let event: UnsafeMutablePointer<yaml_event_t>
    private let input: UnsafeMutableBufferPointer<UInt8>
    private var holdsEvent = false
    private let source: SourceText
    private let bytes: [UInt8]

    init(bytes: [UInt8], source: SourceText) {
        self.bytes = bytes
        self.source = source
        parser = .allocate(capacity: 1)
        event = .allocate(capacity: 1)
        input = .allocate(capacity: max(bytes.count, 1))
        _ = input.initialize(from: bytes)
        yaml_parser_initialize(parser)
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
        yaml_parser_set_input_string(parser, input.baseAddress, bytes.count)
    }

    deinit {
        if holdsEvent { yaml_event_delete(event) }
        yaml_parser_delete(parser)
        event.deallocate()
        input.deallocate()
        parser.deallocate()
    }

    /// The next event and where it starts, or the parser's error.
    func next() throws(ParseError) -> (Event, SourceLocation) {
        try advance()
        return (convert(event.pointee), location(event.pointee.start_mark))
    }

    /// Reads the next event without copying it out of C, for content that is skipped: +1 when it opens a list
    /// or mapping, -1 when it closes one, 0 otherwise.
    func skipEvent() throws(ParseError) -> Int {
        try advance()
        switch event.pointee.type {
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT: return 1
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT: return -1
        default: return 0
        }
    }

    private func advance() throws(ParseError) {
        if holdsEvent {
            yaml_event_delete(event)
            holdsEvent = false
        }
        guard yaml_parser_parse(parser, event) == 1 else { throw currentError() }
        holdsEvent = true
    }

    private func convert(_ event: yaml_event_t) -> Event {
        switch event.type {
        case YAML_STREAM_START_EVENT: return .streamStart
        case YAML_STREAM_END_EVENT: return .streamEnd
        case YAML_DOCUMENT_START_EVENT: return .documentStart
        case YAML_DOCUMENT_END_EVENT: return .documentEnd
        case YAML_ALIAS_EVENT: return .alias
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            let text = String(
                decoding: UnsafeBufferPointer(start: data.value, count: data.length), as: UTF8.self)
            return .scalar(
                YAMLScalar(text, style: style(data.style)),
                anchor: data.anchor != nil,
                tag: data.plain_implicit == 0 && data.quoted_implicit == 0 ? string(data.tag) : nil)
        case YAML_SEQUENCE_START_EVENT:
            let data = event.data.sequence_start
            return .sequenceStart(anchor: data.anchor != nil, tag: data.implicit == 0 ? string(data.tag) : nil)
        case YAML_SEQUENCE_END_EVENT: return .sequenceEnd
        case YAML_MAPPING_START_EVENT:
            let data = event.data.mapping_start
            return .mappingStart(anchor: data.anchor != nil, tag: data.implicit == 0 ? string(data.tag) : nil)
        case YAML_MAPPING_END_EVENT: return .mappingEnd
        default: return .streamEnd
        }
    }

    private func style(_ style: yaml_scalar_style_t) -> YAMLScalar.Style {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: .literal
        case YAML_FOLDED_SCALAR_STYLE: .folded
        default: .plain
        }
    }

    private func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }

    private func location(_ mark: yaml_mark_t) -> SourceLocation {
        SourceLocation(file: source.file, line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    private func currentError() -> ParseError {
        let state = parser.pointee
        let problem = state.problem.map { String(cString: $0) } ?? "unknown libyaml error"
        if state.error == YAML_READER_ERROR {
            // Reader errors carry a byte offset and the offending character, not a mark.
            var message = problem
            if state.problem_value >= 0, let scalar = Unicode.Scalar(UInt32(state.problem_value)) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                message += " (U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex))"
            }
            return ParseError(
                message: message, location: source.location(ofByteOffset: state.problem_offset, in: bytes))
        }
        let at = location(state.problem_mark)
        var message = Self.explain(problem, at: at, in: source)
        guard let context = state.context.map({ String(cString: $0) }) else {
            return ParseError(message: message, location: at)
        }
        // The context names what libyaml was reading; point at where that started when it is elsewhere.
        let contextAt = location(state.context_mark)
        if contextAt == at {
            message += " (\(context))"
            return ParseError(message: message, location: at)
        }
        return ParseError(message: message, location: at, notes: [.init(context, at: contextAt)])
    }

    /// libyaml's wording for a tab is obscure; say what is wrong.
    private static func explain(_ problem: String, at location: SourceLocation, in source: SourceText) -> String {
        guard problem == "found character that cannot start any token",
              let line = source.line(location.line) else { return problem }
        let scalars = Array(line.unicodeScalars)
        let index = location.column - 1
        if index >= 0, index < scalars.count, scalars[index] == "\t" {
            return "found a tab character; YAML indentation must use spaces"
        }
        return problem
    }
}
