// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A system call that failed: what HandoffBase throws. HandoffError is
/// HandoffModel's, above this target, so callers wrap this one into their
/// own messages ("cannot create the scheduler's timer: <reason>").
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call that failed, as its C name ("eventfd", "timerfd_create").
    public let call: String
    /// Its errno value.
    public let code: Int32
    /// strerror's text for `code`, read when the error was made.
    public let reason: String

    /// The error `call` just set in errno (read at once: nothing may run
    /// between the failed call and this).
    public init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
        self.reason = String(cString: strerror(code))
    }

    public var description: String { "\(call): \(reason)" }
}
