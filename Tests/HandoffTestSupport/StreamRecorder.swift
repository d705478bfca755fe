// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// Keeps the streams an activity receives, and counts `wasContinued`.
public final class StreamRecorder: UserActivityDelegate, @unchecked Sendable {
    private let state = Locked<(continued: Int, streams: [ContinuationStream])>((0, []))
    public init() {}
    public var continued: Int { state.withLock { $0.continued } }
    public var streams: [ContinuationStream] { state.withLock { $0.streams } }
    public func userActivityWasContinued(_ activity: UserActivity) { state.withLock { $0.continued += 1 } }
    public func userActivity(_ activity: UserActivity, didReceive stream: ContinuationStream) {
        state.withLock { $0.streams.append(stream) }
    }
}
