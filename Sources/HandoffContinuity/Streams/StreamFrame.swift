// SPDX-License-Identifier: MIT OR Apache-2.0
/// The frames of a connection in stream mode (docs/PROTOCOL.md,
/// "Continuation streams"): the same `u32 N, type, payload` framing as the
/// exchange, with two types of its own.
enum StreamFrame {
    /// Stream bytes, 1 or more.
    static let data: UInt8 = 7
    /// The sender of this frame writes no more (a half-close); no payload.
    static let end: UInt8 = 8

    /// Bytes of data a sender puts in one frame: with the 5-byte header a
    /// frame fills one 16 KiB TLS record exactly.
    static let maxDataPerFrame = 16_384 - headerSize
    static let headerSize = 5

    /// Writes a header for a frame of `type` with `payloadCount` bytes.
    static func writeHeader(_ type: UInt8, payloadCount: Int, to header: UnsafeMutableRawPointer) {
        let n = UInt32(1 + payloadCount)
        header.storeBytes(of: n.bigEndian, as: UInt32.self)
        header.storeBytes(of: type, toByteOffset: 4, as: UInt8.self)
    }
}
