// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Continuation streams: the receiving app opens them on an activity it
/// continued; the sending app's activity delegate receives them.
extension Application {
    /// Main thread: `activity` was continued from `remote`; its streams
    /// connect there. The application becomes its owner.
    func remember(_ activity: UserActivity, continuedFrom remote: RemoteActivity) {
        activity.owner = self
        state.withLock { s in
            s.continued.removeAll { $0.activity.activityID == activity.activityID }
            s.continued.append((activity, remote))
            if s.continued.count > Self.continuedLimit { s.continued.removeFirst() }
        }
    }

    public func activity(_ activity: UserActivity,
                         openContinuationStream completion: @escaping (Result<ContinuationStream, HandoffError>) -> Void) throws(HandoffError) {
        guard let remote = state.withLock({ s in s.continued.first { $0.activity === activity }?.remote }) else {
            throw HandoffError(.invalidState, "continuation streams exist only for an activity this application continued from another device")
        }
        guard let continuity else {
            throw HandoffError(.invalidState, "no continuity service is running, so no other device can be reached")
        }
        // The completion is the host's: it runs on the main thread only.
        let delivery = MainThreadOnly(completion)
        continuity.openStream(remote) { [weak self] result in
            guard let self else { return }  // the stream, if any, closes with `result`
            self.queue.post { delivery.value(result.mapError(\.asUserActivityError)) }
        }
    }

    public func acceptStream(_ activityID: ActivityID, _ stream: ContinuationStream,
                             reply: @escaping @Sendable (Result<Void, HandoffError>) -> Bool) {
        queue.post { [weak self] in
            guard let self else {
                _ = reply(.failure(HandoffError(.handoffFailed, "the application has stopped")))
                return
            }
            let activity = self.state.withLock { s in s.served.first { $0.id == activityID }?.activity }
            guard let activity else {
                _ = reply(.failure(HandoffError(.handoffFailed, "this device did not send that activity (or no longer remembers it)")))
                return
            }
            guard activity.supportsContinuationStreams, !activity.isInvalidated else {
                _ = reply(.failure(HandoffError(.handoffFailed, "activity \"\(activity.activityType)\" does not support continuation streams on the sending device")))
                return
            }
            guard let delegate = activity.delegate, delegate.takesContinuationStreams else {
                _ = reply(.failure(HandoffError(.handoffFailed, "the sending app has no activity delegate to take the continuation stream")))
                return
            }
            guard reply(.success(())) else { return }  // the other device gave up waiting
            delegate.userActivity(activity, didReceive: stream)
        }
    }
}

/// A value only ever touched on the application's main thread, carried
/// through closures that other threads hold.
struct MainThreadOnly<Value>: @unchecked Sendable {
    // @unchecked: created and used on the main thread only; other threads
    // just pass it along.
    let value: Value
    init(_ value: Value) { self.value = value }
}
