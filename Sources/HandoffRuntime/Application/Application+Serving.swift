// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The sending side: another device fetches the current activity.
extension Application: ContinuityEndpoint {
    public func provideActivity(_ activityID: ActivityID, reply: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Bool) {
        queue.post { [weak self] in
            guard let self else {
                _ = reply(.failure(HandoffError(.handoffFailed, "the application has stopped")))
                return
            }
            self.serve(activityID, reply: reply)
        }
    }

    /// Main thread: the pending save, then the payload. A payload the
    /// service still waited for is remembered, to be confirmed; a failure
    /// of this side's own making is told to the activity's delegate.
    private func serve(_ activityID: ActivityID, reply: (Result<[UInt8], HandoffError>) -> Bool) {
        guard let activity = currentActivity, activity.activityID == activityID,
              advertisement(for: activity) != nil else {
            _ = reply(.failure(HandoffError(.handoffFailed, "the activity is no longer offered on the other device")))
            return
        }
        if activity.takeNeedsSave() { performSave(activity) }
        let payload: [UInt8]
        do {
            payload = try ActivityCoding.encode(activity)
        } catch {
            _ = reply(.failure(error.asUserActivityError))
            // The cause as made here (too large, a missing required key),
            // not the code the other device reads.
            activity.delegate?.userActivity(activity, didFailToHandOffWith: error)
            return
        }
        if reply(.success(payload)) {
            rememberServed(activity)
        } else {
            activity.delegate?.userActivity(activity, didFailToHandOffWith: HandoffError(
                .remoteApplicationTimedOut,
                "another device asked for activity \"\(activity.activityType)\", but this app's main thread "
                    + "answered only after that device stopped waiting (it got 4610): dispatch more often"))
        }
    }

    /// Counts one more fetch of `activity` awaiting its CONFIRM; the most
    /// recently served activity moves last, so the oldest is forgotten.
    func rememberServed(_ activity: UserActivity) {
        state.withLock { s in
            var entry = ServedActivity(activity: activity)
            if let i = s.served.firstIndex(where: { $0.id == activity.activityID }) {
                entry = s.served.remove(at: i)
            }
            entry.unconfirmed = min(entry.unconfirmed + 1, Self.unconfirmedLimit)
            s.served.append(entry)
            if s.served.count > Self.servedLimit { s.served.removeFirst() }
        }
    }

    public func remoteActivityChanged(_ change: RemoteActivityChange) {
        state.withLock { s in
            switch change {
            case .available(let r), .updated(let r): s.available[r.activityID] = r
            case .withdrawn(let r): s.available[r.activityID] = nil
            }
        }
        queue.post { [weak self] in
            guard let self else { return }
            switch change {
            case .available(let r): self.delegate.application(self, remoteActivityBecameAvailable: r)
            case .updated(let r): self.delegate.application(self, remoteActivityWasUpdated: r)
            case .withdrawn(let r): self.delegate.application(self, remoteActivityWasWithdrawn: r)
            }
        }
    }

    /// The payload served for `activityID` never reached the other device:
    /// no CONFIRM can come for it, and the delegate is told (main thread).
    public func handOffFailed(_ activityID: ActivityID, _ error: HandoffError) {
        queue.post { [weak self] in
            guard let self else { return }
            let served = self.state.withLock { s -> UserActivity? in
                guard let i = s.served.firstIndex(where: { $0.id == activityID }) else { return nil }
                if s.served[i].unconfirmed > 0 { s.served[i].unconfirmed -= 1 }
                return s.served[i].activity
            }
            let current = self.currentActivity
            guard let activity = served ?? (current?.activityID == activityID ? current : nil) else { return }
            activity.delegate?.userActivity(activity, didFailToHandOffWith: error)
        }
    }

    public func activityWasContinued(_ activityID: ActivityID) {
        queue.post { [weak self] in
            guard let self else { return }
            // One CONFIRM per fetch served: a duplicate, or one for an id
            // never served, finds nothing to consume. The activity stays
            // remembered for its streams.
            let activity = self.state.withLock { s -> UserActivity? in
                guard let i = s.served.firstIndex(where: { $0.id == activityID }), s.served[i].unconfirmed > 0 else { return nil }
                s.served[i].unconfirmed -= 1
                return s.served[i].activity
            }
            if let activity { activity.delegate?.userActivityWasContinued(activity) }
        }
    }
}
