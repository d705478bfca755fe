// SPDX-License-Identifier: MIT OR Apache-2.0
/// userInfo values as JSON text (RFC 8259, UTF-8): the one codec for it.
/// Not the wire encoding (that is the binary property list,
/// docs/PROTOCOL.md §2). Two forms, written by one writer:
///
/// - The exact form (`encode`, `decode`; `handoff_value_encode_json`,
///   `handoff_value_decode_json`): what bindings convert through when their
///   language parses JSON natively and property lists only in interpreted
///   code (Python's `json` against its pure-Python `plistlib`), and what the
///   browser bridge's messages and Tailscale's status are read with. Only
///   JSON-shaped values have it: null, boolean, integer, finite real,
///   string, array, dictionary; data, date, URL, set and non-finite reals
///   are refused (a binding uses the property list for those).
/// - The tagged form (`encodeTagged`; the `handoff` command's `--json` and
///   `key = value` output, docs/cli.md): every value, the kinds JSON lacks
///   as one-key objects: `{"$data": base64}`, `{"$date": seconds since
///   1970}`, `{"$url": text}`, `{"$set": [members]}`, members sorted by
///   their JSON text; a non-finite real is `null`, and DEL is escaped like
///   the other control characters (the output is read on terminals). It is
///   written only: a `$`-key object reads back as a dictionary.
///
/// Both: an integer is a number without fraction or exponent (and must fit
/// 64 bits), a real always has one ("3.0", "1e+16"), so a value survives
/// JSON and back with its kinds; dictionary keys are sorted; `"`, `\` and
/// control characters are escaped (`\n`, `\t`, `\r`, else `\u00XX`), the
/// rest is the string's UTF-8.
public enum UserInfoJSON {
    /// Text longer than this is refused before it is read: as much as a
    /// binary property list may expand to (`DecodingLimits.maxBytes`).
    public static let maxLength = 1 << 24
}
