// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import CLinux
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The engine's scheduler thread, `hoff-scheduler` (docs/agent.md §8):
/// what is sent when, the remote table's sweep and the pool's reaping, on
/// its reactor, which sleeps until the earliest deadline there is.
extension ContinuityEngine {
    /// Deadlines this close are met now: a timer that fires a hair early
    /// (rounding) does not cost a second wake-up.
    static let timerSlack = 0.000_5

    /// The scheduler thread (`hoff-scheduler`): its reactor runs `schedule`
    /// before each wait, so whatever woke it (a deadline, a wake-up, a
    /// pooled connection's close, the settings file) is followed by one pass.
    func startScheduler() {
        if let settingsStore, let settingsWatch, settingsWatch.descriptor >= 0 {
            _ = scheduler.watch(settingsWatch.descriptor, .readable) { [weak self] _ in
                if settingsWatch.changed() { self?.reloadSettings(from: settingsStore) }
            }
        }
        let pool = PoolWatches()
        scheduler.beforeEachWait { [weak self] in
            self?.schedule(watching: pool)
        }
        // The thread holds the engine until `detach` stops it; the reactor's
        // hooks and handlers hold it weakly (the reactor is the engine's).
        threads.start(named: "hoff-scheduler") { [self] in self.scheduler.run() }
    }

    /// One pass of the scheduler: beacons in bursts then keep-alives,
    /// withdrawal beacons, solicitations, owed answers, the reaping of pooled connections
    /// and the sweep of silent or expired remote activities, then its timer
    /// armed for the earliest of their deadlines, disarmed when there is
    /// none (docs/agent.md §8); whoever makes something due sooner wakes it.
    /// The pooled connections left are watched for their peer's close.
    private func schedule(watching pool: PoolWatches) {
        let now = monotonicSeconds() + Self.timerSlack
        let (advert, withdrawal, solicitation, presence, stopped): (Advertisement?, ActivityID?, Bool, Bool, Bool) = state.withLock { s in
            var advert: Advertisement?
            if let due = s.nextBeacon, due <= now, let a = s.advertisement {
                advert = a
                s.burstStep += 1
                let burst = configuration.burst
                let delay = s.burstStep < burst.count ? burst[s.burstStep] - burst[s.burstStep - 1] : configuration.keepaliveInterval
                s.nextBeacon = now + max(0.01, delay)
            }
            var withdrawal: ActivityID?
            if var w = s.withdrawal, let first = w.remaining.first, first <= now {
                withdrawal = w.activityID
                w.remaining.removeFirst()
                s.withdrawal = w.remaining.isEmpty ? nil : w
            }
            var solicitation = false
            if let first = s.solicitations.first, first <= now {
                solicitation = true
                s.solicitations.removeFirst()
            }
            var presence = false
            if s.advertisement == nil, let due = s.nextPresence, due <= now {
                presence = true
                s.nextPresence = nil  // `seal` sets the next one
            }
            return (advert, withdrawal, solicitation, presence, s.stopped)
        }
        if stopped { return }
        if let advert { send(advert) }
        if let withdrawal { send(withdrawal: withdrawal) }
        if solicitation { seal(kind: .solicit, activity: nil) }
        if presence { seal(kind: .presence, activity: nil) }
        answerOwed(now: now)
        sweep()
        let pooled = client.poolWatch()
        pool.sync(pooled.descriptors, on: scheduler)
        state.withLock { s in
            s.scheduled = [s.nextBeacon, s.withdrawal?.remaining.first, s.solicitations.first, pooled.nextReap,
                           s.advertisement == nil ? s.nextPresence : nil, s.owedAnswersDue]
                .compactMap { $0 }.min()
            rearm(&s)
        }
    }

    /// Arms the scheduler's timer for the earliest deadline there is (none:
    /// disarmed), without waking it. With the state locked: the scheduler
    /// and the beacon receiver both call it.
    func rearm(_ s: inout State) {
        let next = [s.scheduled, s.sweepDue].compactMap { $0 }.min()
        guard next != s.armed else { return }
        s.armed = next
        scheduler.arm(schedulerTimer, atSeconds: next)
    }

    /// The scheduler's reactor's counts (tests: an idle engine's scheduler
    /// makes no turn).
    var schedulerCounts: Reactor.Counts { scheduler.counts }

    /// Closes the pooled connections due, and withdraws what the remote
    /// table holds no longer (devices silent, activities expired).
    private func sweep() {
        client.reap()
        let (changes, endpoint, roster) = state.withLock { s in
            let (now, wall) = (monotonicSeconds(), wallMilliseconds())
            let (changes, gone) = s.remotes.sweep(now: now, lifetime: configuration.remoteLifetime,
                                                  presenceLifetime: configuration.presenceLifetime, wallMilliseconds: wall)
            s.sweepDue = s.remotes.nextSweep(lifetime: configuration.remoteLifetime,
                                             presenceLifetime: configuration.presenceLifetime, now: now, wallMilliseconds: wall)
            // A verified device gone offline: its last seen is worth keeping.
            let offline = gone.filter { $0.value.verified }
            for (id, entry) in offline { s.roster.heard(id, at: Self.wall(of: entry.lastHeard, now: now, wall: wall)) }
            return (changes, s.endpoint, offline.isEmpty ? nil : nextRoster(&s))
        }
        if let endpoint { changes.forEach(endpoint.remoteActivityChanged) }
        if let roster {
            persist(roster)
            devicesChanged()
        }
    }

    /// Makes the scheduler run a pass now (something became due sooner).
    func poke() { scheduler.wake() }
}
