import PythonRunner
import Testing

extension Trait where Self == ConditionTrait {
    /// Skips a test that validates with Python's jsonschema when it is not installed, with the reason;
    /// SESSION_CONFORMANCE_REQUIRE_TOOLS=1 runs it anyway, so it fails with the install instructions.
    static var needsJSONSchema: Self {
        .enabled(if: Python.toolsRequired || Python.hasJSONSchema, Comment(rawValue: Python.jsonSchemaSkipReason))
    }
}
