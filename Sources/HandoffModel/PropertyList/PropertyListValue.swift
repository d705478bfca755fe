// SPDX-License-Identifier: MIT OR Apache-2.0
/// A value as a binary property list stores it.
///
/// This is the codec's own model, closer to the bytes than `UserInfoValue`:
/// dates are plain seconds since the plist epoch, data is plain bytes, and
/// the bplist null token (0x00) is a case of its own.
///
/// Equality is structural and follows the payloads' own `==`: `.real(.nan)`
/// is not equal to itself, `.real(0.0) == .real(-0.0)`, and strings compare
/// by Swift's canonical equivalence (so `"é"` precomposed equals
/// `"e\u{301}"`, although the two encode to different bytes).
public indirect enum PropertyListValue: Sendable, Equatable {
    /// The bplist 0x00 token.
    case null
    case boolean(Bool)
    case integer(Int64)
    case real(Double)
    /// Seconds since 2001-01-01T00:00:00Z (the plist epoch).
    case date(Double)
    case data([UInt8])
    case string(String)
    case array([PropertyListValue])
    /// Keys are strings only.
    case dictionary([String: PropertyListValue])
}
