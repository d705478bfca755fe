// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import Synchronization

/// The receiving side: willContinue, fetch, then exactly one of continue
/// or didFailToContinue.
extension Application {
    /// Continues an activity another device offers. Any thread; the
    /// delegate hears `willContinue` at the next dispatch, then exactly one
    /// of `continue` or `didFailToContinue`.
    public func continueActivity(_ remote: RemoteActivity) {
        queue.post { [weak self] in self?.beginContinuing(remote) }
    }

    /// Continues the activity `activityID` that another device offers, as
    /// last reported to the delegate. Any thread.
    /// - Throws: `.notFound` when no device offers it (any more).
    public func continueActivity(id activityID: ActivityID) throws(HandoffError) {
        guard let remote = state.withLock({ $0.available[activityID] }) else {
            throw HandoffError(.notFound, "no other device offers activity \(activityID.uuidString) (any more)")
        }
        continueActivity(remote)
    }

    /// A continuation chosen outside the app (docs/agent.md §3, CONTINUE):
    /// the same path as `continueActivity(_:)`, whether or not the activity
    /// was reported to this app before. Any thread.
    public func continueChosen(_ remote: RemoteActivity) {
        continueActivity(remote)
    }

    /// `continueChosen` with the activation token of the person's click:
    /// `continuingActivationToken` gives it during this continuation's
    /// callbacks. Any thread.
    public func continueChosen(_ remote: RemoteActivity, activationToken: String?) {
        if let activationToken, !activationToken.isEmpty {
            state.withLock { s in
                s.activationTokens.removeAll { $0.0 == remote.activityID }
                if s.activationTokens.count >= Self.maxActivationTokens { s.activationTokens.removeFirst() }
                s.activationTokens.append((remote.activityID, activationToken))
            }
        }
        continueActivity(remote)
    }

    /// Tokens kept for continuations under way.
    public static var maxActivationTokens: Int { 8 }

    /// The activation token of the continuation whose callback runs now
    /// (willContinue, continue, didFailToContinue, openWebpage), when it
    /// was chosen outside the app and the notification server gave one;
    /// else nil. The app hands it to its toolkit to raise its window
    /// (Wayland xdg-activation; X11 startup id). Read it on the main thread
    /// during those callbacks; nil at any other time.
    public var continuingActivationToken: String? {
        state.withLock { $0.currentActivationToken }
    }

    /// Runs `body` with `remote`'s token current; `last`: the continuation
    /// ends with it, and its token is forgotten.
    private func withActivationToken<T>(of remote: RemoteActivity, last: Bool, _ body: () -> T) -> T {
        state.withLock { s in
            let index = s.activationTokens.firstIndex { $0.0 == remote.activityID }
            s.currentActivationToken = index.map { s.activationTokens[$0].1 }
            if last, let index { s.activationTokens.remove(at: index) }
        }
        defer { state.withLock { $0.currentActivationToken = nil } }
        return body()
    }

    /// The activities other devices offer now, oldest first.
    public var availableActivities: [RemoteActivity] {
        state.withLock { $0.available.values.sorted { $0.firstSeen < $1.firstSeen } }
    }

    private func beginContinuing(_ remote: RemoteActivity) {
        if remote.isWebOnly {
            // No app here can continue it: the browser does (Apple: Safari).
            if let url = remote.webpageURL {
                withActivationToken(of: remote, last: true) { delegate.application(self, openWebpage: url, for: remote) }
            }
            return
        }
        _ = withActivationToken(of: remote, last: false) {
            delegate.application(self, willContinueUserActivityWithType: remote.activityType)
        }
        guard let continuity else {
            failContinuing(remote, HandoffError(.connectionUnavailable, "no continuity service is running, so no other device can be reached"))
            return
        }
        let once = Atomic(false)
        continuity.fetch(remote) { [weak self] result in
            guard !once.exchange(true, ordering: .acquiringAndReleasing) else { return }
            self?.queue.post { [weak self] in self?.finishContinuing(remote, result) }
        }
    }

    private func finishContinuing(_ remote: RemoteActivity, _ result: Result<[UInt8], HandoffError>) {
        let activity: UserActivity
        switch result {
        case .failure(let error):
            failContinuing(remote, error)
            return
        case .success(let bytes):
            do {
                activity = try ActivityCoding.decode(bytes)
            } catch {
                failContinuing(remote, error.code == .userInfoTooLarge ? error
                    : HandoffError(.handoffFailed, "the other device sent an activity that cannot be read: \(error.message)"))
                return
            }
        }
        guard activity.activityType == remote.activityType, activity.activityID == remote.activityID else {
            failContinuing(remote, HandoffError(.handoffFailed, "the other device sent a different activity than the one offered"))
            return
        }
        remember(activity, continuedFrom: remote)
        let handler = RestorationHandler(activity: activity, queue: queue)
        if withActivationToken(of: remote, last: true, {
            delegate.application(self, continue: activity, restorationHandler: handler)
        }) {
            continuity?.confirmContinued(remote)
        }
    }

    private func failContinuing(_ remote: RemoteActivity, _ error: HandoffError) {
        withActivationToken(of: remote, last: true) {
            delegate.application(self, didFailToContinueUserActivityWithType: remote.activityType,
                                 error: error.asUserActivityError)
        }
    }
}

extension HandoffError {
    /// The error as Apple's user-activity domain reports it: 4608-4863 kept,
    /// anything else becomes HandoffFailed (4608) with the same message.
    public var asUserActivityError: HandoffError {
        isUserActivityError ? self : HandoffError(.handoffFailed, message)
    }
}
