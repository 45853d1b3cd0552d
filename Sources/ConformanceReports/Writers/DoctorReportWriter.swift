import ConformanceProtocol
import ConformanceRunner
import JSONCore

/// `doctor`'s report as the console prints it and as JSON (`--report json`). What the adapter said (its name,
/// the stderr line quoted in a diagnosis) is data: the console text escapes control characters; JSON escapes
/// everything.
public enum DoctorReportWriter {
    public static func text(_ report: DoctorReport) -> String {
        var text = "doctor: \(WorkingDirectory.relativizing(report.adapter))\n"
        if let hello = report.hello {
            let implementation = hello.implementation
            text += "hello: \(implementation.name) \(implementation.version) (\(implementation.language), \(implementation.platform)); "
            text += "capabilities: \(hello.capabilities.isEmpty ? "none" : hello.capabilities.joined(separator: ", ")); "
            text += "http: \(hello.httpMode.rawValue); "
            text += "refreshTriggers: \(hello.refreshTriggers.map { $0.joined(separator: ", ") } ?? "not declared (the runner finds out)")\n"
        }
        for probe in report.probes {
            let time = probe.status == .notRun ? "" : "\(tenths(probe.seconds)) s"
            text += "  " + pad(probe.status.rawValue, 9) + pad(probe.id, 19) + pad(time, 9) + probe.title + "\n"
        }
        for diagnosis in report.diagnoses {
            text += diagnosis.line + "\n"
        }
        text += summary(report) + "\n"
        return ConsoleText.lines(text)
    }

    /// The last line: the count of problems and notes, and what the exit code means.
    public static func summary(_ report: DoctorReport) -> String {
        let problems = report.problems.count
        let notes = report.diagnoses.count - problems
        if report.notStarted {
            return "doctor: the adapter did not start; nothing else was checked"
        }
        let counts = "\(problems) problem\(problems == 1 ? "" : "s"), \(notes) note\(notes == 1 ? "" : "s")"
        return problems == 0
            ? "doctor: \(counts): the adapter speaks the protocol; 'run' gives the client's verdicts"
            : "doctor: \(counts): fix the problems before reading 'run's verdicts"
    }

    public static func json(_ report: DoctorReport, suiteVersion: String) -> String {
        var object: [String: JSONValue] = [
            "kind": "session-conformance-doctor",
            "suiteVersion": .string(suiteVersion),
            "adapter": .string(report.adapter),
            "result": .string(report.notStarted ? "not-started" : report.problems.isEmpty ? "ok" : "problems"),
            "probes": .array(report.probes.map { probe in
                ["id": .string(probe.id), "title": .string(probe.title), "status": .string(probe.status.rawValue),
                 "seconds": .double((probe.seconds * 1000).rounded() / 1000)]
            }),
            "diagnoses": .array(report.diagnoses.map { diagnosis in
                ["check": .string(diagnosis.check), "severity": .string(diagnosis.severity.rawValue),
                 "probe": diagnosis.probe.map(JSONValue.string) ?? .null, "seen": .string(diagnosis.seen),
                 "rule": .string(diagnosis.rule), "section": .string(diagnosis.section), "fix": .string(diagnosis.fix)]
            }),
        ]
        if let hello = report.hello {
            object["hello"] = [
                "name": .string(hello.implementation.name), "version": .string(hello.implementation.version),
                "language": .string(hello.implementation.language), "platform": .string(hello.implementation.platform),
                "capabilities": .array(hello.capabilities.map(JSONValue.string)), "http": .string(hello.httpMode.rawValue),
                "refreshTriggers": hello.refreshTriggers.map { .array($0.map(JSONValue.string)) } ?? .null,
            ]
        }
        return JSONValue.object(object).prettyJSONText
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text.padding(toLength: width, withPad: " ", startingAt: 0)
    }

    private static func tenths(_ value: Double) -> String {
        String((value * 10).rounded() / 10)
    }
}
