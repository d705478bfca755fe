// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase

// HandoffBase sits below this layer and throws `SystemError`; these give
// its failures the library's error, with the words callers always used.

extension HandoffError {
    /// `.io` for a failed system call: "cannot <doing> (<reason>)".
    public init(_ error: SystemError, doing: String) {
        self.init(.io, "cannot \(doing) (\(error.reason))")
    }
}

extension WakePipe {
    /// `WakePipe()`, failing with the library's error.
    public static func make() throws(HandoffError) -> WakePipe {
        do { return try WakePipe() } catch { throw HandoffError(error, doing: "create a pipe") }
    }
}
