// SPDX-License-Identifier: MIT OR Apache-2.0
/// The binary property list format, `bplist00`, as CoreFoundation and
/// CPython's plistlib write it:
///
///     "bplist00"        8-byte header (magic "bplist", version "00")
///     objects...        each a marker byte, then its payload
///     offset table      numObjects big-endian offsets, offsetIntSize bytes each
///     trailer           32 bytes: 5 unused, sortVersion, offsetIntSize,
///                       objectRefSize, numObjects (u64), topObject (u64),
///                       offsetTableOffset (u64)
///
/// Containers hold object references (indexes into the offset table) of
/// objectRefSize bytes each; a dictionary holds all key references, then
/// all value references.
///
/// `encode` is in BinaryPropertyListWriter.swift, `decode` in
/// BinaryPropertyListReader.swift.
public enum BinaryPropertyList {
    /// "bplist00".
    static let magic: [UInt8] = Array("bplist00".utf8)
    static let headerSize = 8
    static let trailerSize = 32

    /// True when the bytes start with the "bplist00" magic.
    public static func hasMagic(_ bytes: [UInt8]) -> Bool {
        bytes.count >= magic.count && bytes[0..<magic.count].elementsEqual(magic)
    }
}
