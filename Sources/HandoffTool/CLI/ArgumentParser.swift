// SPDX-License-Identifier: MIT OR Apache-2.0
/// Parses a command's arguments against its option list, by hand: options
/// as `--name value` or `--name=value`, `--` ends the options, `-h` is
/// `--help`. Anything unknown is a usage error naming what is wrong.
enum ArgumentParser {
    static func parse(_ arguments: [String], command: String, options: [OptionSpec],
                      positionals: ClosedRange<Int>) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments(command: command)
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name = argument == "-h" ? "--help" : argument
            var inlineValue: String?
            if let equals = name.firstIndex(of: "="), name.hasPrefix("--") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                throw UsageError("unknown option \(name) for `handoff \(command)`", command: command)
            }
            switch spec.kind {
            case .flag:
                if inlineValue != nil {
                    throw UsageError("\(name) takes no value", command: command)
                }
                parsed.flags.insert(name)
            case .value(let placeholder), .repeated(let placeholder):
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else {
                        throw UsageError("\(name) needs a value (\(placeholder))", command: command)
                    }
                    value = arguments[index]
                    index += 1
                }
                if case .value = spec.kind, parsed.values[name] != nil {
                    throw UsageError("\(name) is given twice; give it once", command: command)
                }
                parsed.values[name, default: []].append(value)
            }
        }
        // With --help nothing else matters: the command shows its help.
        if parsed.has("--help") { return parsed }
        if parsed.positionals.count < positionals.lowerBound {
            throw UsageError("`handoff \(command)` is missing an argument", command: command)
        }
        if parsed.positionals.count > positionals.upperBound {
            let extra = parsed.positionals[positionals.upperBound]
            throw UsageError("unexpected argument \"\(extra)\" for `handoff \(command)`", command: command)
        }
        return parsed
    }
}
