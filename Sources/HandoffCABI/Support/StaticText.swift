// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Strings with static storage for C: never freed, never moved.
enum StaticText {
    static var empty: UnsafePointer<CChar> { pointer("") }

    static func pointer(_ s: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// `handoff_status_string`'s text for a code.
    static func status(_ code: Int32) -> UnsafePointer<CChar> {
        code == 0 ? pointer("ok") : pointer(HandoffError.Code(rawValue: code).summary)
    }
}
