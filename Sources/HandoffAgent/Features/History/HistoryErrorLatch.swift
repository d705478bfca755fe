// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Logs a repeated failure once per change of state, not once per try
/// (a full disk failed every write, and was logged 1,397 times): the
/// first failure, a different one, and the first success after failures
/// (with how many failed meanwhile). Not thread-safe: one thread each.
struct HistoryErrorLatch {
    private var failing: String?
    /// Failures since the last success.
    private var failures = 0

    /// A failure: the line to log, nil when it is the one already logged.
    mutating func failed(_ error: HandoffError) -> String? {
        failures += 1
        guard error.message != failing else { return nil }
        failing = error.message
        return error.message
    }

    /// A success: the line to log when it ends a failing state.
    mutating func succeeded(_ what: String) -> String? {
        guard failing != nil else { return nil }
        defer { failing = nil; failures = 0 }
        return "\(what) works again (\(failures) failed meanwhile)"
    }

    var isFailing: Bool { failing != nil }
}
