import SpecYAML

/// Every ID a spec file names must exist in the file that defines it.
enum ReferenceChecks {
    static func check(_ bundle: SpecBundle) -> [Diagnostic] {
        let resolver = ReferenceResolver(incomplete: bundle.incomplete)
        var diagnostics: [Diagnostic] = []
        if let catalogue = bundle.catalogue {
            diagnostics += check(catalogue, machine: bundle.stateMachine, resolver: resolver)
        }
        if let machine = bundle.stateMachine {
            diagnostics += StateMachineChecks.check(machine, resolver: resolver)
        }
        diagnostics += checkCases(bundle, resolver: resolver)
        return diagnostics
    }

    private static func check(
        _ catalogue: RequirementsCatalogue, machine: StateMachine?, resolver: ReferenceResolver
    ) -> [Diagnostic] {
        var diagnostics = duplicateIDs(catalogue.requirements.map { ($0.id, $0.location) }, "requirement")
        diagnostics += duplicateIDs(catalogue.documents.map { ($0.file.value, $0.file.location) }, "document")
        diagnostics += duplicateIDs(catalogue.capabilities.map { ($0.id, $0.location) }, "capability")
        let documents = catalogue.documents.map(\.file.value)
        let capabilities = catalogue.capabilities.map(\.id)
        for requirement in catalogue.requirements {
            let place = "requirement '\(requirement.id)'"
            var references = requirement.sources.map(\.document)
            if let resolution = requirement.resolution {
                references.append(resolution.follows)
                references += resolution.rejects.map(\.document)
            }
            diagnostics += references.compactMap { resolver.check($0, .document, known: documents, in: place) }
            if let capability = requirement.capability,
               let error = resolver.check(capability, .capability, known: capabilities, in: place) {
                diagnostics.append(error)
            }
            guard let machine else { continue }
            let transitions = machine.transitions.map(\.id)
            let invariants = machine.invariants.map(\.id)
            diagnostics += requirement.transitions.compactMap {
                resolver.check($0, .transition, known: transitions, in: place)
            }
            diagnostics += requirement.invariants.compactMap {
                resolver.check($0, .invariant, known: invariants, in: place)
            }
        }
        return diagnostics
    }

    private static func checkCases(_ bundle: SpecBundle, resolver: ReferenceResolver) -> [Diagnostic] {
        let cases = bundle.cases
        var diagnostics = duplicateIDs(cases.map { ($0.id, $0.location) }, "case")
        for acceptanceCase in cases {
            let place = "case '\(acceptanceCase.id)'"
            if let catalogue = bundle.catalogue {
                for reference in acceptanceCase.requirements {
                    if let error = resolver.check(reference, .requirement, known: catalogue.requirements.map(\.id), in: place) {
                        diagnostics.append(error)
                    } else if let requirement = catalogue.requirement(reference.value), !requirement.level.isTestable {
                        diagnostics.append(.error(
                            "requirement '\(requirement.id)' is \(requirement.level.rawValue); no client case can test it",
                            at: reference.location))
                    }
                }
                let named = Set(acceptanceCase.requirements.map(\.value))
                for case .expect(let expectation) in acceptanceCase.steps.map(\.action) {
                    for reference in expectation.verifies {
                        if let error = resolver.check(reference, .requirement, known: catalogue.requirements.map(\.id), in: place) {
                            diagnostics.append(error)
                        } else if !named.contains(reference.value) {
                            diagnostics.append(.error(
                                "expect verifies '\(reference.value)', which \(place) does not list in its requirements",
                                at: reference.location))
                        }
                    }
                }
                diagnostics += acceptanceCase.capabilities.compactMap {
                    resolver.check($0, .capability, known: catalogue.capabilities.map(\.id), in: place)
                }
            }
            if let machine = bundle.stateMachine {
                diagnostics += acceptanceCase.transitions.compactMap {
                    resolver.check($0, .transition, known: machine.transitions.map(\.id), in: place)
                }
                for expectation in acceptanceCase.steps.compactMap(\.action.expectation) {
                    diagnostics += (expectation.transitions ?? []).compactMap {
                        resolver.check($0, .transition, known: machine.transitions.map(\.id), in: place)
                    }
                }
                let states = machine.states.map(\.id)
                for step in acceptanceCase.steps {
                    for reference in stateReferences(in: step.arguments) {
                        if let error = resolver.check(reference, .state, known: states, in: place) {
                            diagnostics.append(error)
                        }
                    }
                }
            }
        }
        return diagnostics
    }

    /// Every value of a `state` key anywhere inside a step's arguments.
    private static func stateReferences(in node: YAMLNode) -> [Located<String>] {
        switch node.content {
        case .scalar:
            return []
        case .sequence(let items):
            return items.flatMap(stateReferences)
        case .mapping(let entries):
            return entries.flatMap { entry -> [Located<String>] in
                if entry.key == "state", let text = entry.value.scalar?.text {
                    return [Located(text, at: entry.value.location)]
                }
                return stateReferences(in: entry.value)
            }
        }
    }
}
