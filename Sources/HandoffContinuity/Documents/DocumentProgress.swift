// SPDX-License-Identifier: MIT OR Apache-2.0

/// How far a document being brought from another device has come
/// (PROTOCOL.md §12), for whoever shows it: the agent's log, a command.
public struct DocumentProgress: Sendable, Equatable {
    /// The document's name, as the sender described it.
    public let name: String
    /// The sending device's name.
    public let device: String
    public let received: UInt64
    public let total: UInt64

    public init(name: String, device: String, received: UInt64, total: UInt64) {
        self.name = name
        self.device = device
        self.received = received
        self.total = total
    }

    /// Reported at most this often, in bytes (and once at the end).
    public static let step: UInt64 = 4 << 20
}
