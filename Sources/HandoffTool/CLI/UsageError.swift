// SPDX-License-Identifier: MIT OR Apache-2.0
/// A wrong command line: the tool says what is wrong, points at `--help`
/// and exits 2 without doing anything.
struct UsageError: Error {
    var message: String
    /// The command whose help to point at ("nearby"), or nil for the tool.
    var command: String?

    init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    var hint: String {
        "see `handoff\(command.map { " " + $0 } ?? "") --help`"
    }
}
