// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// How far a document being brought from another device has come
/// (PROTOCOL.md §12), for whoever shows it or waits on it: the agent's
/// log, an app's FETCH through the agent (BRINGING, docs/agent.md §3).
public struct DocumentProgress: Sendable, Equatable {
    /// The remote activity being fetched whose document this is.
    public let activityID: ActivityID
    /// The document's name, as the sender described it.
    public let name: String
    /// The sending device's name.
    public let device: String
    public let received: UInt64
    public let total: UInt64

    public init(activityID: ActivityID, name: String, device: String, received: UInt64, total: UInt64) {
        self.activityID = activityID
        self.name = name
        self.device = device
        self.received = received
        self.total = total
    }

    /// Reported at the start (0 bytes, also when a wait for a sync
    /// begins), each time this many more bytes came, at least every
    /// `interval` while bytes flow, and at the end: whoever waits on a
    /// fetch hears of it well within its own deadline.
    public static let step: UInt64 = 4 << 20
    /// Seconds: the longest a flowing transfer goes unreported.
    public static let interval = 1.0
}
