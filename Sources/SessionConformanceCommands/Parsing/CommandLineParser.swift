import SpecModel

/// One option a command accepts.
struct OptionSpec: Sendable {
    enum Kind: Sendable {
        /// `--verbose`
        case flag
        /// `--spec-root DIR` or `--spec-root=DIR`
        case value(placeholder: String)
    }

    let name: String
    let kind: Kind
    let help: String
    /// A one-letter alias spelt with one dash (`-k EXPR` for `--filter EXPR`), or nil.
    var short: Character? = nil
}

/// The parsed command line of one command.
struct ParsedArguments: Sendable {
    var flags: Set<String> = []
    var values: [String: [String]] = [:]
    var positionals: [String] = []
    /// How the executable was started, for the commands the suite prints to be run again.
    var program = Invocation.standard

    func value(_ name: String) -> String? { values[name]?.last }
}

/// A deliberately small parser: long options, `--name=value` or `--name value`, one-letter aliases
/// (`-k value` or `-kvalue`), `--` ends options.
enum CommandLineParser {
    static let helpOption = OptionSpec(name: "help", kind: .flag, help: "Show this help.")

    static func parse(_ arguments: [String], options: [OptionSpec]) throws -> ParsedArguments {
        let all = options + [helpOption]
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" {
                parsed.flags.insert("help")
                continue
            }
            let spec: OptionSpec
            let name: String
            let inlineValue: String?
            if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                name = String(body.prefix { $0 != "=" })
                inlineValue = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
                guard let found = all.first(where: { $0.name == name }) else {
                    let suggestion = Suggestion.closest(to: name, among: all.map(\.name))
                    throw UsageError("unknown option '--\(name)'", hint: suggestion.map { "did you mean '--\($0)'?" })
                }
                spec = found
            } else {
                let letter = argument.dropFirst().first
                guard let found = all.first(where: { $0.short != nil && $0.short == letter }) else {
                    throw UsageError("unknown option '\(argument)'", hint: "options are spelt with two dashes, like --help")
                }
                spec = found
                name = found.name
                let rest = argument.dropFirst(2)
                inlineValue = rest.isEmpty ? nil : String(rest)
            }
            switch spec.kind {
            case .flag:
                if inlineValue != nil { throw UsageError("option '--\(name)' takes no value") }
                parsed.flags.insert(name)
            case .value(let placeholder):
                if let inlineValue {
                    parsed.values[name, default: []].append(inlineValue)
                } else if index < arguments.count {
                    parsed.values[name, default: []].append(arguments[index])
                    index += 1
                } else {
                    throw UsageError("option '--\(name)' needs a value (\(placeholder))")
                }
            }
        }
        return parsed
    }
}
