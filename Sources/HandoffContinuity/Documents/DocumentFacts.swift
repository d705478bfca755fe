// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// What identifies a document's content: its size, modification time and
/// SHA-256 (PROTOCOL.md §12). Two copies are the same when size and hash
/// agree; the time only tells the sender that its file changed.
public struct DocumentFacts: Sendable, Hashable {
    public var size: UInt64
    public var modified: Timestamp
    /// 32 bytes.
    public var sha256: [UInt8]

    public init(size: UInt64, modified: Timestamp, sha256: [UInt8]) {
        self.size = size
        self.modified = modified
        self.sha256 = sha256
    }

    /// Whether `other` holds the same bytes (size and hash; not the time).
    public func sameContent(as other: DocumentFacts) -> Bool {
        size == other.size && sha256 == other.sha256
    }
}
