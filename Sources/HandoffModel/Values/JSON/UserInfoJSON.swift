// SPDX-License-Identifier: MIT OR Apache-2.0
/// userInfo values as JSON text (RFC 8259, UTF-8): not the wire encoding
/// (that is the binary property list, docs/PROTOCOL.md §2) but the shape
/// bindings convert through when their language parses JSON natively and
/// property lists only in interpreted code (Python's `json` against its
/// pure-Python `plistlib`). Only JSON-shaped values have a JSON form:
/// null, boolean, integer, finite real, string, array, dictionary. Data,
/// date, URL, set and non-finite reals have none; a binding uses the
/// property list for those.
///
/// The mapping is exact both ways: an integer is a number without fraction
/// or exponent (and must fit 64 bits), a real always has one ("3.0",
/// "1e+16"), so a value survives JSON and back with its kinds.
public enum UserInfoJSON {
    /// Text longer than this is refused before it is read: as much as a
    /// binary property list may expand to (`DecodingLimits.maxBytes`).
    public static let maxLength = 1 << 24
}
