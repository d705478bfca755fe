// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
/// The bounds of one pipe (PROTOCOL.md §11 "Pipes", "Limits"). Times in
/// seconds on whatever clock the caller passes as `now`.
public struct RelayPipeLimits: Sendable, Equatable {
    /// Payload bytes a side holds for the channel (delivered and held out
    /// of order), and the most it has unacknowledged.
    public var window = 65_536
    /// Unacknowledged frames, and how far ahead a frame may be held.
    public var maxFramesInFlight = 64
    /// The other side's window until its first frame says otherwise.
    public var initialPeerWindow = 16_384
    public var retransmitInitial = 1.0
    public var retransmitMax = 8.0
    /// Retransmissions without progress before the pipe is reset.
    public var maxRetransmits = 5
    /// Nothing received for this long: an ACK with ANSWER.
    public var keepalive = 10.0
    /// Nothing received for this long: RESET (idle).
    public var idle = 30.0
    /// Frames received per second (token bucket), beyond which they are dropped.
    public var framesPerSecond = 512.0
    public var frameBurst = 128.0

    public init() {}
}
