// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffModel

/// The entry point: global options, the command, its arguments, and the
/// one place errors become messages and exit statuses.
enum Tool {
    static let version = "0.4.0"

    nonisolated(unsafe) static let commands: [any Command.Type] = [
        AccountCommand.self,
        PairCommand.self,
        DeviceCommand.self,
        NearbyCommand.self,
        DevicesCommand.self,
        PublishCommand.self,
        ContinueCommand.self,
        DoctorCommand.self,
        AgentCommand.self,
        SettingsCommand.self,
        HistoryCommand.self,
        RelayCommand.self,
        BrowserHostCommand.self,
        MPRISBridgeCommand.self,
        SessionCommand.self,
        DocumentsBridgeCommand.self,
    ]

    static func main(_ arguments: [String]) -> Int32 {
        var rest = arguments[...]
        var json = false
        // Global options come before the command.
        while let first = rest.first, first.hasPrefix("-") {
            rest.removeFirst()
            switch first {
            case "--json":
                json = true
            case "--help", "-h":
                Output(json: false).write(Help.tool(commands))
                return ExitCode.ok
            case "--version":
                Output(json: json).emit(.object(["version": .string(version)]), human: "handoff \(version)")
                return ExitCode.ok
            default:
                return usage(UsageError("unknown option \(first)"), Output(json: json))
            }
        }
        guard let name = rest.first else {
            return usage(UsageError("no command given"), Output(json: json))
        }
        if name == "help" {
            // `handoff help [COMMAND]` is `--help` spelled as a command.
            let topic = rest.dropFirst().first
            if let topic, let command = commands.first(where: { $0.name == topic }) {
                Output(json: false).write(Help.command(command))
            } else {
                Output(json: false).write(Help.tool(commands))
            }
            return ExitCode.ok
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            return usage(UsageError("unknown command \"\(name)\""), Output(json: json))
        }
        return run(command, Array(rest.dropFirst()), json: json)
    }

    static func run(_ command: any Command.Type, _ arguments: [String], json: Bool) -> Int32 {
        var output = Output(json: json || arguments.contains("--json"))
        do {
            let parsed = try ArgumentParser.parse(arguments, command: command.name, options: command.allOptions,
                                                  positionals: command.positionals)
            output = Output(json: json || parsed.has("--json"))
            // --json is for scripts: its texts (doctor's "what", "todo") stay
            // English. The agent's notifications are a person's, whatever its log is.
            if output.json && command.name != AgentCommand.name { Localization.translating = false }
            if parsed.has("--help") {
                Output(json: false).write(Help.command(command))
                return ExitCode.ok
            }
            return try command.run(parsed, output)
        } catch let error as UsageError {
            return usage(error, output)
        } catch let error as HandoffError {
            output.failure(error)
            return ExitCode.failure
        } catch {
            output.failure(HandoffError(.handoffFailed, "\(error)"))
            return ExitCode.failure
        }
    }

    private static func usage(_ error: UsageError, _ output: Output) -> Int32 {
        output.usageError(error)
        return ExitCode.usage
    }
}
