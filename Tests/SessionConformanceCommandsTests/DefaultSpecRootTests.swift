@testable import SessionConformanceCommands
import Testing

@Suite("The default spec root")
struct DefaultSpecRootTests {
    @Test("Specs/ in the working directory wins over the bundled one")
    func workingDirectoryFirst() {
        let root = DefaultSpecRoot.resolve(isDirectory: { ["Specs", "/opt/sc/Specs"].contains($0) }, executableDirectory: "/opt/sc")
        #expect(root == "Specs")
    }

    @Test("without Specs/ in the working directory, the Specs/ beside the executable is used (the release archive)")
    func bundledNextToExecutable() {
        let root = DefaultSpecRoot.resolve(isDirectory: { $0 == "/opt/sc/Specs" }, executableDirectory: "/opt/sc")
        #expect(root == "/opt/sc/Specs")
    }

    @Test("with neither, the default stays Specs, so the missing folder is reported by its usual name")
    func neither() {
        #expect(DefaultSpecRoot.resolve(isDirectory: { _ in false }, executableDirectory: "/opt/sc") == "Specs")
    }
}
