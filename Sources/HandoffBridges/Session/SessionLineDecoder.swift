// SPDX-License-Identifier: MIT OR Apache-2.0
/// The lines of `handoff session`'s standard input (docs/cli.md "handoff
/// session"): each ends with LF (a CR before it is dropped). Fed the bytes
/// as they arrive; holds at most `maxLine` bytes. A longer line is dropped
/// as it streams past, never buffered, and reported with its length when
/// it ends, so memory stays bounded whatever is written. Pure: the command
/// reads, this splits.
public struct SessionLineDecoder {
    /// The longest line taken: a publish whose userInfo fills the 3072-byte
    /// budget is far shorter, even with every byte escaped.
    public static let maxLine = 64 << 10

    public enum Event: Equatable {
        /// One line, without its end.
        case line([UInt8])
        /// A line of this many bytes was longer than `maxLine`: dropped.
        case tooLong(length: Int)
    }

    private var line: [UInt8] = []
    /// Over-long: how many bytes of it went by.
    private var dropped: Int?

    public init() {}

    /// Consumes `bytes`; the lines they complete, in order.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                events.append(endLine())
            } else if let count = dropped {
                dropped = count + 1
            } else if line.count == Self.maxLine {
                dropped = line.count + 1
                line = []
            } else {
                line.append(byte)
            }
        }
        return events
    }

    /// At the end of input: the last line when it had no LF, else nothing.
    public mutating func finish() -> Event? {
        guard dropped != nil || !line.isEmpty else { return nil }
        return endLine()
    }

    private mutating func endLine() -> Event {
        defer {
            line.removeAll(keepingCapacity: line.count <= 4096)
            dropped = nil
        }
        if let count = dropped { return .tooLong(length: count) }
        if line.last == UInt8(ascii: "\r") { return .line(Array(line.dropLast())) }
        return .line(line)
    }
}
