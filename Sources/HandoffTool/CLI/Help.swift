// SPDX-License-Identifier: MIT OR Apache-2.0
/// The text of `--help`, for the tool and for each command.
enum Help {
    static func tool(_ commands: [any Command.Type]) -> String {
        var text = """
            handoff: Handoff between your Linux devices (libhandoff \(Tool.version))

            Usage: handoff [--json] COMMAND [OPTIONS]
                   handoff COMMAND --help

            Commands:

            """
        let width = commands.map { $0.name.count }.max() ?? 0
        for command in commands {
            text += "  " + pad(command.name, width) + "  " + command.summary + "\n"
        }
        text += """

            The account and this device's identity live in $XDG_CONFIG_HOME/handoff
            (else ~/.config/handoff). Start with `handoff account create` on one
            device and `handoff account join CODE` on the others.

            Options for every command: --json (output for scripts), --help.
            handoff --version prints the version.

            \(ExitCode.help)
            """
        return text + "\n"
    }

    static func command(_ command: any Command.Type) -> String {
        var text = "Usage:\n"
        for line in command.synopsis {
            // A line starting with a space continues the one above it.
            text += line.hasPrefix(" ") ? "          \(line.drop { $0 == " " })\n" : "  handoff \(line)\n"
        }
        text += "\n" + command.details + "\n\nOptions:\n"
        let options = command.allOptions
        let width = min(28, options.map(\.signature.count).max() ?? 0)
        for option in options {
            let signature = option.signature
            let repeatable = if case .repeated = option.kind { " (repeatable)" } else { "" }
            if signature.count > width {
                text += "  \(signature)\n  \(pad("", width))  \(option.help)\(repeatable)\n"
            } else {
                text += "  \(pad(signature, width))  \(option.help)\(repeatable)\n"
            }
        }
        return text + "\n" + ExitCode.help + "\n"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
