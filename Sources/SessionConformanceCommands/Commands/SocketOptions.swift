import ConformanceRunner

/// `--listen HOST:PORT --launch CMD [--kill CMD]`: a client that connects over TCP instead of running as an adapter
/// process (docs/adapter-protocol.md, Socket transport). Shared by run, explore and doctor.
enum SocketOptions {
    static let options = [
        OptionSpec(name: "listen", kind: .value(placeholder: "HOST:PORT"),
                   help: "Wait for the client on this TCP address instead of starting --adapter (port 0: a free one, given to the commands as {port})."),
        OptionSpec(name: "launch", kind: .value(placeholder: "COMMAND"),
                   help: "With --listen: starts a client instance, which connects (run with /bin/sh -c)."),
        OptionSpec(name: "kill", kind: .value(placeholder: "COMMAND"),
                   help: "With --listen: ends the client instance at a kill (default: end the launch command's process group)."),
    ]

    /// The socket launcher the options ask for; nil without --listen.
    static func launcher(_ arguments: ParsedArguments, timeout: Int) throws -> SocketAdapterLauncher? {
        guard let listen = arguments.value("listen") else {
            for option in ["launch", "kill"] where arguments.value(option) != nil {
                throw UsageError("--\(option) applies to a client that connects over TCP", hint: "add --listen HOST:PORT")
            }
            return nil
        }
        for option in ["adapter", "connection", "variant"] where arguments.value(option) != nil {
            throw UsageError("--listen and --\(option) choose the client two ways", hint: "give one of them")
        }
        guard let address = SocketAdapterLauncher.address(listen) else {
            throw UsageError("--listen takes HOST:PORT, such as 127.0.0.1:7000, not '\(listen)'")
        }
        guard let launch = arguments.value("launch") else {
            throw UsageError("--listen needs --launch COMMAND: what starts the client", hint: "for a local adapter: --launch \"python3 scripts/socket-client.py 127.0.0.1:{port} python3 my_adapter.py\"")
        }
        if let jobs = arguments.value("jobs"), jobs != "1" {
            throw UsageError("--listen plays one client at a time: --jobs must be 1", hint: "drop --jobs")
        }
        return SocketAdapterLauncher(host: address.host, port: address.port, launchCommand: launch, killCommand: arguments.value("kill"),
                                     timeout: .seconds(timeout), loopbackPort: try RunCommand.loopbackPort(arguments))
    }

    /// The options as a printed command repeats them.
    static func reproduce(_ arguments: ParsedArguments) -> String {
        ["listen", "launch", "kill"].compactMap { name in arguments.value(name).map { " --\(name) " + ShellWord.quoted($0) } }.joined()
    }
}
