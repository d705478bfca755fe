// SPDX-License-Identifier: MIT OR Apache-2.0
/// The browsers' native-messaging framing (docs/browser.md §2): each
/// message is a 32-bit length in native byte order (little-endian on the
/// machines we build for) and that many bytes of UTF-8 JSON. Fed the bytes
/// as they arrive; holds at most one message of `maxMessage` bytes. A
/// longer message is skipped as it streams past, never buffered; a length
/// over `maxLength` (Chromium's own ceiling) cannot be a browser's and ends
/// the stream. Pure: the host reads, this decides.
public struct NativeMessageDecoder {
    /// What the host accepts from the extension.
    public static let maxMessage = 64 << 10
    /// What a browser may send at most (Chromium: 64 MiB).
    public static let maxLength = 64 << 20

    public enum Event: Equatable {
        /// One whole message.
        case message([UInt8])
        /// A message of this many bytes was longer than `maxMessage`: its
        /// bytes were read and dropped; the next message is intact.
        case skipped(length: Int)
        /// The stream cannot go on (a length no browser sends).
        case broken(String)
    }

    private var header: [UInt8] = []
    private var body: [UInt8] = []
    /// The body's length once its header is read.
    private var expected: Int?
    /// Over-long: how many bytes of it are still to drop.
    private var skipping = 0
    private var skippedLength = 0
    private(set) public var isBroken = false

    public init() {}

    /// Consumes `bytes`; the events they complete, in order.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [Event] {
        var events: [Event] = []
        var index = bytes.startIndex
        while index != bytes.endIndex && !isBroken {
            if skipping > 0 {
                let take = min(skipping, bytes.distance(from: index, to: bytes.endIndex))
                index = bytes.index(index, offsetBy: take)
                skipping -= take
                if skipping == 0 { events.append(.skipped(length: skippedLength)) }
                continue
            }
            guard let length = expected else {
                header.append(bytes[index])
                index = bytes.index(after: index)
                if header.count == 4 {
                    let value = Int(UInt32(header[0]) | UInt32(header[1]) << 8 | UInt32(header[2]) << 16 | UInt32(header[3]) << 24)
                    header.removeAll(keepingCapacity: true)
                    if value > Self.maxLength {
                        isBroken = true
                        events.append(.broken("a message of \(value) bytes announced, over the browsers' \(Self.maxLength)"))
                    } else if value > Self.maxMessage {
                        skipping = value
                        skippedLength = value
                    } else if value == 0 {
                        events.append(.message([]))
                    } else {
                        expected = value
                        body.reserveCapacity(value)
                    }
                }
                continue
            }
            let take = min(length - body.count, bytes.distance(from: index, to: bytes.endIndex))
            let end = bytes.index(index, offsetBy: take)
            body.append(contentsOf: bytes[index..<end])
            index = end
            if body.count == length {
                events.append(.message(body))
                body = []
                expected = nil
            }
        }
        return events
    }

    /// Whether the stream may end here: between messages.
    public var isAtBoundary: Bool { header.isEmpty && expected == nil && skipping == 0 }

    /// One message as the browser reads it: nil when over `maxReply`.
    public static func frame(_ text: String) -> [UInt8]? {
        let body = Array(text.utf8)
        guard body.count <= maxReply else { return nil }
        let n = UInt32(body.count)
        return [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)] + body
    }

    /// What a browser takes from a host (Chromium: 1 MiB).
    public static let maxReply = 1 << 20
}
