import ConformanceProtocol
import Foundation
import ReferenceAdapter

// The reference client as an adapter process: protocol v1 on stdin/stdout, its own log on stderr.
let adapter = ReferenceClientAdapter()
let output = FileHandle.standardOutput

func write(_ messages: [AdapterMessage]) {
    guard !messages.isEmpty else { return }
    output.write(Data(messages.map { $0.line + "\n" }.joined().utf8))
}

write(adapter.start())
while let line = readLine(strippingNewline: true) {
    guard !line.isEmpty else { continue }
    do {
        write(adapter.handle(try RunnerMessage(line: line)))
    } catch {
        FileHandle.standardError.write(Data("reference adapter: \(error)\n".utf8))
        exit(3)
    }
}
