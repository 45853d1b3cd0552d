import SpecYAML

/// Text with every run of white space folded to one space, remembering where each character came from,
/// so quotes can be matched across line breaks and leftovers reported at their real line and column.
struct NormalizedText {
    private(set) var scalars: [Unicode.Scalar] = []
    /// Line and column in the original text of each scalar.
    private(set) var origins: [(line: Int, column: Int)] = []

    init(_ text: String) {
        var line = 1
        var column = 1
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !scalars.isEmpty
            } else {
                if pendingSpace {
                    scalars.append(" ")
                    origins.append((line, max(column - 1, 1)))
                    pendingSpace = false
                }
                scalars.append(scalar)
                origins.append((line, column))
            }
            if scalar == "\n" {
                line += 1
                column = 1
            } else if scalar != "\r" {
                column += 1
            }
        }
    }

    /// Every start index at which `needle` occurs.
    func occurrences(of needle: NormalizedText) -> [Int] {
        occurrences(of: needle.scalars[...])
    }

    func occurrences(of needle: ArraySlice<Unicode.Scalar>) -> [Int] {
        guard !needle.isEmpty, needle.count <= scalars.count else { return [] }
        var found: [Int] = []
        let first = needle.first!
        var start = 0
        while start + needle.count <= scalars.count {
            if scalars[start] == first, scalars[start..<start + needle.count].elementsEqual(needle) {
                found.append(start)
            }
            start += 1
        }
        return found
    }

    /// How many leading scalars of `needle` occur somewhere in this text.
    func longestMatchingPrefix(of needle: NormalizedText) -> Int {
        var low = 0
        var high = needle.scalars.count
        while low < high {
            let middle = (low + high + 1) / 2
            if occurrences(of: needle.scalars[..<middle]).isEmpty { high = middle - 1 } else { low = middle }
        }
        return low
    }

    var string: String { String(String.UnicodeScalarView(scalars)) }

    func excerpt(_ range: Range<Int>, limit: Int = 60) -> String {
        let clamped = range.clamped(to: 0..<scalars.count)
        let text = String(String.UnicodeScalarView(scalars[clamped]))
        return text.count > limit ? String(text.prefix(limit)) + "…" : text
    }
}
