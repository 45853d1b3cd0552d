import AdapterKit
import ReferenceAdapter

// The reference client as an adapter process: protocol v1 on stdin/stdout, its own log on stderr.
AdapterProcessMain.run(ReferenceClientAdapter())
