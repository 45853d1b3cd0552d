import Foundation
import SpecYAML

/// A spec is a requirements catalogue and a state machine (and cases): lint fails when either is missing,
/// when a folder holds no spec file, or when the spec root is not a folder, so `run` never starts without them.
enum SpecPresence {
    static func check(targets: [String], specRoot: String, files: [String], bundle: SpecBundle) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: specRoot, isDirectory: &isDirectory), !isDirectory.boolValue {
            diagnostics.append(.error("the spec root must be a folder (the one with requirements.yaml), not a file",
                                      at: start(of: specRoot)))
            return diagnostics
        }
        for target in targets {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: target, isDirectory: &isFolder), isFolder.boolValue else { continue }
            if !files.contains(where: { $0.hasPrefix(target) }) {
                diagnostics.append(.error("the folder has no spec file (.yaml or .yml)", at: start(of: target)))
            }
        }
        guard diagnostics.isEmpty, !files.isEmpty else { return diagnostics }
        let place = start(of: targets.first ?? specRoot)
        // Lint of one folder looks for them there; single files borrow them from the spec root.
        var folder = specRoot
        if targets.count == 1, FileManager.default.fileExists(atPath: targets[0], isDirectory: &isDirectory),
           isDirectory.boolValue {
            folder = targets[0]
        }
        if bundle.catalogue == nil {
            diagnostics.append(.error("the spec has no requirements file ('kind: requirements'); "
                                      + "it is expected at \(folder)/requirements.yaml", at: place))
        }
        if bundle.stateMachine == nil {
            diagnostics.append(.error("the spec has no state-machine file ('kind: state-machine'); "
                                      + "it is expected at \(folder)/state-machine.yaml", at: place))
        }
        return diagnostics
    }

    private static func start(of path: String) -> SourceLocation {
        SourceLocation(file: path, line: 1, column: 1)
    }
}
