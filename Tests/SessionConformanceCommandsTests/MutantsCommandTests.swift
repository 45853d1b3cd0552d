import SessionConformanceCommands
import Testing

@Suite("The mutants command")
struct MutantsCommandTests {
    @Test("--list names every variant with its kind and defect, and runs nothing")
    func listsVariants() {
        let (code, console) = run("mutants", "--list")
        #expect(code == .success)
        for name in ["refresh-per-request", "when-unlocked-tokens", "naive-ios", "naive-android", "naive-flutter"] {
            #expect(console.stdout.contains(name))
        }
        #expect(!console.stdout.contains("score:"))
    }

    @Test("an unknown variant is a usage error with a suggestion")
    func unknownVariant() {
        let (code, console) = run("mutants", "--variant", "token-in-logs")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.contains("unknown variant 'token-in-logs'"))
        #expect(console.stderr.contains("did you mean 'token-in-log'?"))
    }

    @Test("one variant: the control passes, the matrix row names the killing requirement, and the score is 100%")
    func oneVariantIsKilled() {
        let (code, console) = run("mutants", "--variant", "no-input-validation", "--spec-root", Paths.specs, "--jobs", "2")
        #expect(code == .success, "\(console.stdout)\(console.stderr)")
        #expect(console.stdout.contains("control: the unmodified reference passes every case and every requirement"))
        let row = console.stdout.split(separator: "\n").first { $0.hasPrefix("no-input-validation") }
        #expect(row?.contains("yes") == true)
        #expect(row?.contains("SIGNIN-VALIDATE-INPUT") == true)
        #expect(console.stdout.contains("score: 1 / 1 killed (100%)"))
    }
}
