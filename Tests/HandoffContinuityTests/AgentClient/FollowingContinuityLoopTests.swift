// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
import HandoffModel
import HandoffTestSupport
@testable import HandoffContinuity
@testable import HandoffRuntime
import Testing

/// The follower's `Reactor`, counted (docs/agent.md §8): waiting for the
/// agent it turns once at start, then only for a change of the socket's
/// folder, once per change (a watch it did not drain would turn without end).
@Suite struct FollowingContinuityLoopTests {
    @Test func waitingForTheAgentTheFollowerTurnsOnlyForItsFolder() throws {
        let base = AgentSocketWatchTests.freshBase()
        let folder = base + "/handoff"
        #expect(mkdir(folder, 0o700) == 0)
        defer {
            _ = unlink(folder + "/other")
            _ = rmdirTree(folder)
            _ = rmdirTree(base)
        }
        var choice = ContinuityModeChoice(mode: .automatic, accountID: testAccount.derived.accountID)
        choice.socketPath = folder + "/agent.sock"
        choice.follow = true
        let manifest = try manifest()
        let (service, mode) = try choice.start(manifest: manifest) { () throws(HandoffError) in RecordingEngine() }
        defer { service.detach() }
        let following = try #require(service as? FollowingContinuityService)
        #expect(mode == .embedded)
        let endpoint = RecordingEndpoint(manifest: manifest)  // services keep their endpoint weakly
        service.attach(endpoint)
        // The look at start: one job, one turn; then asleep.
        #expect(waitUntil { following.loopCounts.jobs == 1 })
        usleep(200_000)  // an observation window, not a synchronisation
        #expect(following.loopCounts.waits == 1, "\(following.loopCounts)")
        // Something else appears in the folder: one look, then asleep again.
        let fd = open(folder + "/other", O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        #expect(fd >= 0)
        close(fd)
        #expect(waitUntil { following.loopCounts.waits >= 2 })
        usleep(200_000)
        let counts = following.loopCounts
        #expect(counts.waits == 2, "\(counts)")
        #expect(counts.timerFires == 0 && following.connectTries == 0, "\(counts)")
        #expect(following.mode == .embedded)
    }
}
