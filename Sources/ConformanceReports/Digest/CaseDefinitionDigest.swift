import JSONCore
import SpecModel
import SpecYAML

/// What a case plays and checks, as one digest: `sha256:` of the compact JSON (sorted keys) of its
/// requirements, transitions, capabilities, trigger and steps (each step's kind and arguments as decoded).
/// Its ID, title, comments and layout are left out, so rewording a title keeps the digest and changing a
/// step, an expectation or the requirements it names changes it. A trigger variant's digest covers the steps
/// it plays under its trigger. The oracles are code, not part of a case: a changed oracle keeps every digest
/// (the spec version and CHANGELOG.md say when the oracles changed).
public enum CaseDefinitionDigest {
    public static func of(_ testCase: AcceptanceCase) -> String {
        let definition: JSONValue = .object([
            "requirements": .array(testCase.requirements.map { .string($0.value) }),
            "transitions": .array(testCase.transitions.map { .string($0.value) }),
            "capabilities": .array(testCase.capabilities.map { .string($0.value) }),
            "trigger": testCase.trigger.map { .string($0.rawValue) } ?? .null,
            "steps": .array(testCase.steps.map { .object(["kind": .string($0.kind), "arguments": $0.arguments.jsonValue]) }),
        ])
        return "sha256:" + SHA256.hex(Array(definition.jsonText.utf8))
    }
}
