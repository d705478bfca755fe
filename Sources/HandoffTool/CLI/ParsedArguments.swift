// SPDX-License-Identifier: MIT OR Apache-2.0
/// A command's arguments after parsing, with typed readers that turn bad
/// values into usage errors.
struct ParsedArguments {
    let command: String
    var flags: Set<String> = []
    var values: [String: [String]] = [:]
    var positionals: [String] = []

    init(command: String) {
        self.command = command
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    func value(_ name: String) -> String? { values[name]?.last }

    func values(_ name: String) -> [String] { values[name] ?? [] }

    func usage(_ message: String) -> UsageError { UsageError(message, command: command) }

    /// A port number 0...65535 (0 where the option allows "any free port").
    func port(_ name: String, allowZero: Bool = true) throws(UsageError) -> UInt16? {
        guard let text = value(name) else { return nil }
        guard let port = UInt16(text), allowZero || port != 0 else {
            throw usage("\(name) \"\(text)\" is not a port number (\(allowZero ? 0 : 1)-65535)")
        }
        return port
    }

    /// A duration in seconds: a decimal number, not negative, at most a day.
    func seconds(_ name: String) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
            throw usage("\(name) \"\(text)\" is not a number of seconds (such as 5 or 0.5)")
        }
        return seconds
    }
}
