// SPDX-License-Identifier: MIT OR Apache-2.0
/// The tool's exit statuses, documented in every `--help`.
enum ExitCode {
    /// The command did what was asked.
    static let ok: Int32 = 0
    /// It could not: a Handoff error, an unhealthy `doctor`, nothing found in time.
    static let failure: Int32 = 1
    /// The command line was wrong; nothing was done.
    static let usage: Int32 = 2

    /// The paragraph each help text ends with.
    static let help = """
        Exit status: 0 ok; 1 failure (the message, and with --json the
        "error" object, gives the code: 4608-4611 are Apple's Handoff errors);
        2 usage error (nothing was done).
        """
}
