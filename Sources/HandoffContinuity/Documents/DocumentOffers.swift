// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// The documents this device described in the payloads it sent, for the
/// activities it served last: what a DOCUMENT_OPEN may ask for
/// (PROTOCOL.md §12). The resolved paths never leave this device.
final class DocumentOffers: Sendable {
    static let capacity = 16
    private let offers = Locked<[(ActivityID, [DescribedDocument])]>([])

    func record(_ id: ActivityID, _ documents: [DescribedDocument]) {
        offers.withLock { list in
            list.removeAll { $0.0 == id }
            list.append((id, documents))
            if list.count > Self.capacity { list.removeFirst(list.count - Self.capacity) }
        }
    }

    /// The document of activity `id` with that content hash, if offered.
    func document(_ id: ActivityID, sha256: [UInt8]) -> DescribedDocument? {
        offers.withLock { list in
            list.last { $0.0 == id }?.1.first { $0.facts.sha256 == sha256 }
        }
    }
}
