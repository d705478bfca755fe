// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CHandoffHeader
import HandoffModel

// Version, status codes, errors and memory: see include/handoff.h.

/// Keep in step with HANDOFF_VERSION_* in include/handoff.h (a C test
/// compares them).
enum LibraryVersion {
    static let major: UInt32 = 0
    static let minor: UInt32 = 4
    static let patch: UInt32 = 0
    static let string: StaticString = "0.4.0"
}

@c @implementation public func handoff_version_number() -> UInt32 {
    LibraryVersion.major * 10000 + LibraryVersion.minor * 100 + LibraryVersion.patch
}

@c @implementation public func handoff_version_string() -> UnsafePointer<CChar>? {
    StaticText.pointer(LibraryVersion.string)
}

@c @implementation public func handoff_status_string(_ status: Int32) -> UnsafePointer<CChar>? {
    StaticText.status(status)
}

@c @implementation public func handoff_last_error_message() -> UnsafePointer<CChar>? {
    LastError.message
}

@c @implementation public func handoff_last_error_code() -> Int32 {
    LastError.code
}

@c @implementation public func handoff_free(_ pointer: UnsafeMutableRawPointer?) {
    free(pointer)
}
