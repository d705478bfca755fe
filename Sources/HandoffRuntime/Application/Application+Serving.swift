import FoundationEssentials
import HandoffModel

/// The sending side: another device fetches the current activity.
extension Application: ContinuityEndpoint {
    public func provideActivity(_ activityID: UUID, reply: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        queue.post { [weak self] in
            guard let self else { return }
            reply(self.serve(activityID))
        }
    }

    /// Main thread: the pending save, then the payload.
    private func serve(_ activityID: UUID) -> Result<[UInt8], HandoffError> {
        guard let activity = currentActivity, activity.activityID == activityID,
              advertisement(for: activity) != nil else {
            return .failure(HandoffError(.handoffFailed, "the activity is no longer offered on the other device"))
        }
        if activity.takeNeedsSave() { performSave(activity) }
        do {
            let payload = try ActivityCoding.encode(activity)
            state.withLock { s in
                if !s.served.contains(where: { $0.id == activityID }) {
                    s.served.append(ServedActivity(activity: activity))
                }
                if s.served.count > Self.servedLimit { s.served.removeFirst() }
            }
            return .success(payload)
        } catch {
            return .failure(error.asUserActivityError)
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

    public func activityWasContinued(_ activityID: UUID) {
        queue.post { [weak self] in
            guard let self else { return }
            // Told once; the activity stays remembered for its streams.
            let activity = self.state.withLock { s -> UserActivity? in
                guard let i = s.served.firstIndex(where: { $0.id == activityID }), !s.served[i].confirmed else { return nil }
                s.served[i].confirmed = true
                return s.served[i].activity
            }
            if let activity { activity.delegate?.userActivityWasContinued(activity) }
        }
    }
}
