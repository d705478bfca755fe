// SPDX-License-Identifier: MIT OR Apache-2.0
/// A property list file that people and their build tools write, such as an
/// Info.plist: XML or binary, told apart by its first bytes, read as Apple's
/// tools and CPython's plistlib read it, so a key repeated in one
/// dictionary keeps its last value (each repeat reported) rather than
/// refusing the file. What crosses the wire never comes through here: its
/// readers refuse repeats (docs/PROTOCOL.md §1).
public enum PropertyListFile {
    /// - Throws: the reason the bytes are not a property list.
    public static func decode(_ bytes: [UInt8]) throws(PropertyListError) -> (value: PropertyListValue, repeats: [String]) {
        if BinaryPropertyList.hasMagic(bytes) {
            return try BinaryPropertyList.decode(bytes, repeatedKeys: .lastWins)
        }
        if XMLPropertyList.looksLikeXML(bytes) {
            return try XMLPropertyList.decode(bytes, repeatedKeys: .lastWins)
        }
        throw PropertyListError(reason: bytes.isEmpty
            ? "the file is empty"
            : "it starts neither with \"bplist00\" (binary) nor with \"<\" (XML)")
    }
}
