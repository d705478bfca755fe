// SPDX-License-Identifier: MIT OR Apache-2.0

/// A document's name or path, or a peer's words about one, as a message
/// may carry it: the characters a terminal or a log viewer would act on
/// escaped. A name comes from a file system or from another device, and
/// `ESC [ …` would drive the terminal that prints the message, a
/// right-to-left override (U+202E) would show `plan‮txt.exe` as
/// `planexe.txt`. Every message that names a document goes through here.
public enum DocumentText {
    /// `text` with C0 controls, DEL, C1 controls, the bidirectional
    /// controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and
    /// the line and paragraph separators (U+2028, U+2029) written as
    /// `\xHH` (below U+0100) or `\u{HHHH}`; a backslash as `\\`, so that
    /// what is shown reads back unambiguously.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                out += "\\\\"
            } else if isUnsafe(scalar) {
                let hex = String(scalar.value, radix: 16)
                out += scalar.value < 0x100 ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex : "\\u{\(hex)}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether a terminal or a text view acts on `scalar` rather than show it.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
        default: false
        }
    }
}
