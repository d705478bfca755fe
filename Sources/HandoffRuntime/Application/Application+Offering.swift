// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Agent mode: the advertised activity's payload is handed to the agent
/// ahead of any fetch, so that a fetch is answered without a round trip
/// to this process (docs/agent.md §3, OFFER). Only a payload the main
/// thread would produce unchanged is offered: no save pending, and any
/// change withdraws it before the setter returns. The same payload goes to
/// the device's history when the activity is eligible for search (INDEX).
extension Application {
    /// Hands the current activity's payload to the service, encoded once:
    /// as its offer, when the service takes offers and serving it now would
    /// run no save (advertised, needsSave clear, required keys present,
    /// encodable: else a fetch goes to the main thread as before, which
    /// tells the delegate what fails), `offering` permitting; and to the
    /// history (INDEX, docs/history.md) when it is eligible for search and
    /// this revision of it was not indexed yet. Any thread.
    func offerCurrent(offering: Bool = true) {
        guard let service = continuity, let activity = currentActivity else { return }
        let revision = activity.revision
        let offer = offering && service.takesOffers && advertisement(for: activity) != nil
        let index = service.takesIndex && activity.isEligibleForSearch && !activity.isInvalidated
            && state.withLock { s in s.indexed.map { $0.id != activity.activityID || $0.revision != revision } ?? true }
        guard offer || index else { return }
        let saving = state.withLock { $0.pendingSaves.contains(ObjectIdentifier(activity)) }
        guard !saving, !activity.needsSave, activity.missingRequiredKeys.isEmpty,
              let payload = try? ActivityCoding.encode(activity) else { return }
        state.withLock { s in
            // A change since `revision` was read withdraws (or will) what
            // was encoded: hand over only what is still true, and under
            // the lock the withdrawal takes, so the two keep order.
            guard s.current === activity, s.continuity === service, activity.revision == revision else { return }
            if offer, s.advertised?.activityID == activity.activityID {
                s.offered = (activity, revision)
                s.lastOffered = activity
                service.offer(activity.activityID, payload: payload)
            }
            if index {
                s.indexed = (activity.activityID, revision)
                service.index(activity.activityID, payload: payload)
            }
        }
    }

    /// `activity` changed: its offer, if any, is withdrawn now (before the
    /// setter returns), and the current activity is offered again at the
    /// next dispatch (after the save, if one is due).
    func withdrawOffer(of activity: UserActivity) {
        let queueOffer = state.withLock { s -> Bool in
            if let o = s.offered, o.activity === activity {
                s.offered = nil
                s.continuity?.offer(activity.activityID, payload: nil)
            }
            guard s.current === activity, !s.offerQueued,
                  s.continuity?.takesOffers == true || s.continuity?.takesIndex == true else { return false }
            s.offerQueued = true
            return true
        }
        guard queueOffer else { return }
        queue.post { [weak self] in
            guard let self else { return }
            self.state.withLock { $0.offerQueued = false }
            self.offerCurrent()
        }
    }

    /// SERVED: the agent handed the offered payload of `activityID` to a
    /// device; counted as a served fetch (its CONFIRM tells the delegate).
    public func activityServed(_ activityID: ActivityID) {
        let activity = state.withLock { s -> UserActivity? in
            if let a = s.lastOffered, a.activityID == activityID { return a }
            if let a = s.current, a.activityID == activityID { return a }
            return s.served.first { $0.id == activityID }?.activity
        }
        if let activity { rememberServed(activity) }
    }
}
