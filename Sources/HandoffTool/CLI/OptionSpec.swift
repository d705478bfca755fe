// SPDX-License-Identifier: MIT OR Apache-2.0
/// One option a command accepts, and its line in `--help`.
struct OptionSpec: Sendable {
    enum Kind: Sendable {
        /// `--once`: present or not.
        case flag
        /// `--team TEAM`: at most once, with a value.
        case value(String)
        /// `--peer HOST:PORT`: any number of times.
        case repeated(String)
    }

    let name: String
    let kind: Kind
    let help: String

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .flag, help: help)
    }

    static func value(_ name: String, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .value(placeholder), help: help)
    }

    static func repeated(_ name: String, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .repeated(placeholder), help: help)
    }

    var takesValue: Bool {
        if case .flag = kind { return false }
        return true
    }

    /// `--peer HOST:PORT`, as help lists it.
    var signature: String {
        switch kind {
        case .flag: name
        case .value(let placeholder): "\(name) \(placeholder)"
        case .repeated(let placeholder): "\(name) \(placeholder)"
        }
    }

    /// Options every command takes.
    static let common: [OptionSpec] = [
        .flag("--json", "print JSON for scripts (one object per line for streams of events)"),
        .flag("--help", "show this help and exit"),
    ]
}
