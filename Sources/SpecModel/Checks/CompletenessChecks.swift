import SpecYAML

/// Checks that only make sense for a whole spec: everything in the state machine is cited by a requirement.
enum CompletenessChecks {
    /// `checkedInvariants`: the invariants the runner's oracles check; every invariant must be among them.
    static func check(_ bundle: SpecBundle, checkedInvariants: Set<String>?) -> [Diagnostic] {
        guard let machine = bundle.stateMachine, let catalogue = bundle.catalogue else { return [] }
        let citedTransitions = Set(catalogue.requirements.flatMap { $0.transitions.map(\.value) })
        let citedInvariants = Set(catalogue.requirements.flatMap { $0.invariants.map(\.value) })
        var diagnostics: [Diagnostic] = []
        for transition in machine.transitions where !citedTransitions.contains(transition.id) {
            diagnostics.append(.error("transition '\(transition.id)' is not cited by any requirement",
                                      at: transition.location))
        }
        for invariant in machine.invariants where !citedInvariants.contains(invariant.id) {
            diagnostics.append(.error("invariant '\(invariant.id)' is not cited by any requirement",
                                      at: invariant.location))
        }
        if let checkedInvariants {
            for invariant in machine.invariants where !checkedInvariants.contains(invariant.id) {
                diagnostics.append(.error("invariant '\(invariant.id)' is checked by no oracle of the runner",
                                          at: invariant.location))
            }
        }
        return diagnostics
    }
}
