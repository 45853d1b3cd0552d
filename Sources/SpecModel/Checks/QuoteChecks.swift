import SpecYAML

/// Quotes must be verbatim, and a document marked `coverage: complete` must be quoted in full,
/// apart from the passages listed as unquoted with a reason.
enum QuoteChecks {
    static func check(_ bundle: SpecBundle, requireCoverage: Bool) -> [Diagnostic] {
        guard let catalogue = bundle.catalogue else { return [] }
        var diagnostics: [Diagnostic] = []
        var normalized: [String: NormalizedText] = [:]
        for (name, document) in bundle.documents { normalized[name] = NormalizedText(document.text) }
        var covered: [String: [Bool]] = normalized.mapValues { [Bool](repeating: false, count: $0.scalars.count) }

        func mark(_ passage: String, in documentName: String, at location: SourceLocation, what: String) {
            guard let document = normalized[documentName] else { return }
            let needle = NormalizedText(passage)
            let starts = document.occurrences(of: needle)
            guard !starts.isEmpty else {
                diagnostics.append(mismatch(needle, in: document, named: documentName, at: location, what: what))
                return
            }
            for start in starts {
                for index in start..<start + needle.scalars.count { covered[documentName]?[index] = true }
            }
        }

        for requirement in catalogue.requirements {
            for quote in requirement.sources + (requirement.resolution?.rejects ?? []) {
                mark(quote.text, in: quote.document.value, at: quote.location, what: "quote")
            }
        }
        for document in catalogue.documents {
            for passage in document.unquoted {
                mark(passage.text, in: document.file.value, at: passage.location, what: "unquoted passage")
            }
        }
        guard requireCoverage else { return diagnostics }
        for document in catalogue.documents where document.coverage == .complete {
            guard let text = normalized[document.file.value], let marks = covered[document.file.value],
                  let path = bundle.documents[document.file.value]?.path else { continue }
            diagnostics += leftovers(text, covered: marks, path: path)
        }
        return diagnostics
    }

    private static func mismatch(
        _ needle: NormalizedText, in document: NormalizedText, named name: String, at location: SourceLocation,
        what: String
    ) -> Diagnostic {
        let matched = document.longestMatchingPrefix(of: needle)
        guard matched > 0 else {
            return .error("\(what) does not occur in '\(name)'", at: location)
        }
        let start = document.occurrences(of: needle.scalars[..<matched]).first ?? 0
        let documentNext = document.excerpt(start + matched..<start + matched + 20, limit: 20)
        let quoteNext = needle.excerpt(matched..<matched + 20, limit: 20)
        return .error(
            "\(what) does not occur verbatim in '\(name)': the first \(matched) characters match, then the quote has '\(quoteNext)' where the document has '\(documentNext)'",
            at: location)
    }

    /// Runs of letters and digits that no quote or unquoted passage covers, reported in the document itself.
    private static func leftovers(_ text: NormalizedText, covered: [Bool], path: String) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        var index = 0
        let isWord = { (scalar: Unicode.Scalar) in
            scalar.properties.isAlphabetic || scalar.properties.numericType != nil
        }
        while index < text.scalars.count {
            guard !covered[index], isWord(text.scalars[index]) else {
                index += 1
                continue
            }
            let start = index
            while index < text.scalars.count, !covered[index] { index += 1 }
            let origin = text.origins[start]
            diagnostics.append(.error(
                "text not quoted by any requirement nor listed as unquoted: '\(text.excerpt(start..<index).trimmingWhitespace())'",
                at: SourceLocation(file: path, line: origin.line, column: origin.column)))
        }
        return diagnostics
    }
}
