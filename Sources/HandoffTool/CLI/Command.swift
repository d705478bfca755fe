// SPDX-License-Identifier: MIT OR Apache-2.0
/// One subcommand of `handoff`: what `--help` shows, and how it runs.
protocol Command {
    /// The word after `handoff`, e.g. "nearby".
    static var name: String { get }
    /// One line for `handoff --help`.
    static var summary: String { get }
    /// Usage lines, without the leading "handoff ".
    static var synopsis: [String] { get }
    /// What it does, for its `--help`.
    static var details: String { get }
    /// Its options (the common ones are added for it).
    static var options: [OptionSpec] { get }
    /// How many positional arguments it takes.
    static var positionals: ClosedRange<Int> { get }
    /// Runs it; returns the exit status. Throws `UsageError` (exit 2) or
    /// `HandoffError` (exit 1, printed with its code).
    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32
}

extension Command {
    static var positionals: ClosedRange<Int> { 0...0 }
    static var allOptions: [OptionSpec] { options + OptionSpec.common }
}
