// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffContinuity
import Testing

/// Who gives way when the channel server's slots are contended.
@Suite struct ChannelAdmissionPolicyTests {
    typealias P = AdmissionPolicy.Pending
    typealias A = AdmissionPolicy.Authenticated

    static func p(_ id: Int, _ source: String, _ progress: AdmissionPolicy.Progress = .silent, received: Int = 0, since: Double = 0) -> P {
        P(id: id, source: source, progress: progress, received: progress == .silent ? 0 : max(received, 1), since: since)
    }

    @Test func nothingIsShedWhileASlotIsFree() {
        let pending = [Self.p(1, "a"), Self.p(2, "a")]
        #expect(AdmissionPolicy.pendingVictimForBacklog(pending, limit: 3, now: 100, grace: 0.2) == nil)
    }

    @Test func theMostRepresentedSourceGivesWayFirst() {
        let pending = [Self.p(1, "b", since: 0), Self.p(2, "a", .partial, since: 5), Self.p(3, "a", .partial, since: 6), Self.p(4, "c", since: 1)]
        // "a" holds two slots: one of its connections goes, though "b" and "c" are older and silent.
        #expect(AdmissionPolicy.pendingVictimForBacklog(pending, limit: 4, now: 100, grace: 0.2) == 2)
    }

    @Test func withinASourceTheLeastProgressThenTheOldestGoes() {
        let pending = [Self.p(1, "a", .partial, received: 50, since: 0), Self.p(2, "a", since: 3),
                       Self.p(3, "a", .partial, received: 5, since: 1), Self.p(4, "a", since: 2)]
        #expect(AdmissionPolicy.pendingVictimForBacklog(pending, limit: 4, now: 100, grace: 0.2) == 4)  // silent, older than 2
        let started = pending.filter { $0.progress == .partial }
        #expect(AdmissionPolicy.pendingVictimForBacklog(started, limit: 2, now: 100, grace: 0.2) == 3)  // fewer bytes
    }

    @Test func aConnectionThatProvedTheKeyIsNeverShed() {
        let pending = [Self.p(1, "a", .proven, since: 0), Self.p(2, "a", .proven, since: 1), Self.p(3, "b", since: 9)]
        #expect(AdmissionPolicy.pendingVictimForBacklog(pending, limit: 3, now: 100, grace: 0.2) == 3)
        #expect(AdmissionPolicy.pendingVictimForBacklog(Array(pending.prefix(2)), limit: 2, now: 100, grace: 0.2) == nil, "the newcomer waits instead")
    }

    @Test func aSourceOverItsShareShedsItsOwnButNeverTheNewcomer() {
        let pending = [Self.p(1, "a", since: 0), Self.p(2, "a", .partial, since: 1), Self.p(3, "b", since: 0), Self.p(4, "a", since: 2)]
        let newcomer = pending[3]
        #expect(AdmissionPolicy.pendingVictimForShare(pending, newcomer: newcomer, share: 3, now: 100, grace: 0.2) == nil)
        #expect(AdmissionPolicy.pendingVictimForShare(pending, newcomer: newcomer, share: 2, now: 100, grace: 0.2) == 1)
        let proven = [Self.p(1, "a", .proven), Self.p(2, "a", .proven), newcomer]
        #expect(AdmissionPolicy.pendingVictimForShare(proven, newcomer: newcomer, share: 2, now: 100, grace: 0.2) == nil)
    }

    @Test func noConnectionIsShedWithinItsGraceTime() {
        let pending = [Self.p(1, "a", since: 99.9), Self.p(2, "a", since: 99.7), Self.p(3, "b", since: 99.95)]
        #expect(AdmissionPolicy.pendingVictimForBacklog(pending, limit: 3, now: 100, grace: 0.2) == 2)
        #expect(AdmissionPolicy.pendingVictimForBacklog(pending, limit: 3, now: 99.8, grace: 0.2) == nil)
        #expect(AdmissionPolicy.pendingVictimForShare(pending, newcomer: pending[1], share: 1, now: 100, grace: 0.2) == nil,
                "the other one of a's is still within its grace")
    }

    @Test func authenticatedNewcomersAreAdmittedWithinTheCapAndShare() {
        let active = [A(id: 1, source: "a", idleSince: nil), A(id: 2, source: "b", idleSince: 3)]
        #expect(AdmissionPolicy.admitAuthenticated(from: "a", active: active, limit: 3, share: 2) == .admit)
    }

    @Test func whenFullTheOldestIdleOfTheMostRepresentedSourceGoes() {
        let active = [A(id: 1, source: "b", idleSince: 1), A(id: 2, source: "a", idleSince: 7),
                      A(id: 3, source: "a", idleSince: 5), A(id: 4, source: "a", idleSince: nil)]
        #expect(AdmissionPolicy.admitAuthenticated(from: "c", active: active, limit: 4, share: 4) == .admitShedding(3))
        // "a" has nothing idle: the next source that has is asked.
        let busyA = active.map { $0.source == "a" ? A(id: $0.id, source: "a", idleSince: nil) : $0 }
        #expect(AdmissionPolicy.admitAuthenticated(from: "c", active: busyA, limit: 4, share: 4) == .admitShedding(1))
    }

    @Test func nothingIdleMeansRefusalNeverABusyConnection() {
        let active = [A(id: 1, source: "a", idleSince: nil), A(id: 2, source: "b", idleSince: nil)]
        #expect(AdmissionPolicy.admitAuthenticated(from: "c", active: active, limit: 2, share: 2) == .refuse)
    }

    @Test func aSourceAtItsShareReplacesItsOwnIdleConnectionOrIsRefused() {
        let active = [A(id: 1, source: "a", idleSince: 4), A(id: 2, source: "a", idleSince: 2), A(id: 3, source: "b", idleSince: 0)]
        #expect(AdmissionPolicy.admitAuthenticated(from: "a", active: active, limit: 64, share: 2) == .admitShedding(2))
        let busy = [A(id: 1, source: "a", idleSince: nil), A(id: 2, source: "a", idleSince: nil), A(id: 3, source: "b", idleSince: 0)]
        #expect(AdmissionPolicy.admitAuthenticated(from: "a", active: busy, limit: 64, share: 2) == .refuse)
    }
}
