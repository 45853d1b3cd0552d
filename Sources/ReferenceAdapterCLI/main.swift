import AdapterKit
import Foundation
import Mutants
import ReferenceAdapter

// The reference client as an adapter process: protocol v1 on stdin/stdout, its own log on stderr.
//
// `--variant NAME` (or the environment variable SESSION_CONFORMANCE_VARIANT=NAME) runs a known-bad variant
// instead (docs/known-bad.md): the reference with one defect, or a port of the platform guide's naive code.
// `--list-variants` lists them. `--reset` declares the `reset` capability: the runner keeps one process
// across cases (and `explore` across most kills), and each `reset` starts a new client in it.
let arguments = Array(CommandLine.arguments.dropFirst())
var variant = ProcessInfo.processInfo.environment["SESSION_CONFORMANCE_VARIANT"].flatMap { $0.isEmpty ? nil : $0 }
var declaresReset = false
var index = 0
while index < arguments.count {
    switch arguments[index] {
    case "--reset":
        declaresReset = true
    case "--list-variants":
        print(MutantRegistry.all.map { "\($0.name)\t\($0.kind.rawValue)\t\($0.defect)" }.joined(separator: "\n"))
        exit(0)
    case "--variant" where index + 1 < arguments.count:
        variant = arguments[index + 1]
        index += 1
    case let argument where argument.hasPrefix("--variant="):
        variant = String(argument.dropFirst("--variant=".count))
    default:
        FileHandle.standardError.write(Data("""
            usage: session-conformance-reference-adapter [--reset] [--variant NAME | --list-variants]
            unknown argument '\(arguments[index])'

            """.utf8))
        exit(2)
    }
    index += 1
}

if let variant {
    guard let mutant = MutantRegistry.named(variant) else {
        FileHandle.standardError.write(Data("unknown variant '\(variant)'; --list-variants lists them\n".utf8))
        exit(2)
    }
    AdapterProcessMain.run(make: mutant.make, declaresReset: declaresReset)
}
AdapterProcessMain.run(make: { ReferenceClientAdapter() }, declaresReset: declaresReset)
