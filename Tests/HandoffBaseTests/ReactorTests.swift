// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffBase
import CLinux
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The Reactor's rules, by counts, never by timings: every `runOnce`
/// timeout is a safety bound, and each test fails for a reactor that breaks
/// its rule (wakes the loop to arm a timer, keys events by fd number, spins
/// on a closed fd, runs jobs out of order...). Serialized: two tests rely on
/// descriptor numbers no other test takes meanwhile.
@Suite(.serialized) struct ReactorTests {
    @Test func aFarTimerArmedFromAnotherThreadDoesNotWakeTheLoop() throws {
        let reactor = try Reactor()
        let timer = reactor.timer {}
        let jobs = Guarded(0)
        let helper = TestThread {
            reactor.arm(timer, after: 3600)
            reactor.post { jobs.with { $0 += 1 } }   // the sentinel
        }
        reactor.runOnce(timeout: 10)
        helper.join()
        #expect(jobs.value == 1)
        // Whatever the interleaving, every write is drained by now: one,
        // the sentinel's. Arming wrote none.
        #expect(!reactor.runOnce(timeout: 0))
        let counts = reactor.counts
        #expect(counts.waits == 2)
        #expect(counts.wakes == 1)
        #expect(counts.timerFires == 0)
        reactor.release(timer)
    }

    @Test func anEarlierDeadlineFromAnotherThreadFiresWithoutAWake() throws {
        let reactor = try Reactor()
        let fired = Guarded(0)
        let timer = reactor.timer { fired.with { $0 += 1 } }
        reactor.arm(timer, after: 3600)
        // The helper moves the deadline earlier once the loop sleeps in its
        // wait (on the far timer alone), so only the timerfd can end it.
        let loopThread = Guarded<String?>(nil)
        var helper: TestThread?
        reactor.beforeEachWait {
            loopThread.with { $0 = currentThreadPath() }
            helper = TestThread {
                waitUntilSleeping(loopThread.value!)
                reactor.arm(timer, after: 0.001)
            }
        }
        // The timerfd ended the wait, not the safety bound.
        #expect(reactor.runOnce(timeout: 5))
        helper?.join()
        #expect(fired.value == 1)
        let counts = reactor.counts
        #expect(counts.waits == 1)
        #expect(counts.wakes == 0)
        #expect(counts.timerFires == 1)
        #expect(reactor.deadline(of: timer) == nil)   // one-shot: disarmed
    }

    @Test func unwatchingAnotherReadyWatchDropsItsEventThisTurn() throws {
        let reactor = try Reactor()
        let a = TestPipe(readable: true), b = TestPipe(readable: true)
        var first: Reactor.Watch?, second: Reactor.Watch?
        var calls = 0
        first = reactor.watch(a.read, .readable) { _ in
            calls += 1
            reactor.unwatch(first!)
            reactor.unwatch(second!)
        }
        second = reactor.watch(b.read, .readable) { _ in
            calls += 1
            reactor.unwatch(first!)
            reactor.unwatch(second!)
        }
        #expect(reactor.runOnce(timeout: 5))
        #expect(calls == 1)
        #expect(!reactor.runOnce(timeout: 0))   // both gone: nothing polled
        #expect(calls == 1)
    }

    @Test func aReusedNumberReachesOnlyItsNewWatchEvenWithinTheTurn() throws {
        let reactor = try Reactor()
        let trigger = TestPipe(readable: true)
        let old = TestPipe(readable: true)
        var oldCalls = 0, newCalls = 0, newCallsInTheTurn = -1
        var oldWatch: Reactor.Watch?, triggerWatch: Reactor.Watch?
        var replacement: TestPipe?
        // Registered first, so its handler runs before the old watch's
        // (already reported) event is dispatched.
        triggerWatch = reactor.watch(trigger.read, .readable) { _ in
            reactor.unwatch(triggerWatch!)
            reactor.unwatch(oldWatch!)
            // Close the old file and open a new, empty one on its number.
            let fresh = TestPipe()
            #expect(dup2(fresh.read, old.read) == old.read)
            replacement = fresh
            _ = reactor.watch(old.read, .readable) { _ in newCalls += 1 }
        }
        oldWatch = reactor.watch(old.read, .readable) { _ in oldCalls += 1 }
        reactor.runOnce(timeout: 5)
        newCallsInTheTurn = newCalls
        // The new file becomes readable: its watch hears it, the old never.
        replacement!.fill()
        reactor.runOnce(timeout: 5)
        #expect(oldCalls == 0)
        #expect(newCallsInTheTurn == 0)
        #expect(newCalls == 1)
    }

    @Test func aClosedFdIsInvalidOnceAndUnwatched() throws {
        let reactor = try Reactor()
        // A number far above what the process uses, so nothing reopens it.
        let source = TestPipe(readable: true)
        let number: Int32 = 777
        #expect(dup2(source.read, number) == number)
        var heard: [Reactor.Events] = []
        _ = reactor.watch(number, .readable) { heard.append($0) }
        close(number)   // closed before unwatching: the owner's mistake
        #expect(reactor.runOnce(timeout: 5))
        #expect(heard == [.invalid])
        // Not polled again: no spin.
        #expect(!reactor.runOnce(timeout: 0))
        #expect(heard == [.invalid])
    }

    @Test func postsRunInOrderOnTheLoop() throws {
        let reactor = try Reactor()
        let order = Guarded([Int]())
        let onLoop = Guarded(true)
        let poster = TestThread {
            for i in 0..<100 {
                reactor.post {
                    order.with { $0.append(i) }
                    if !reactor.isLoopThread { onLoop.with { $0 = false } }
                }
            }
        }
        poster.join()
        reactor.runOnce(timeout: 5)
        #expect(order.value == Array(0..<100))
        #expect(onLoop.value)
        #expect(!reactor.isLoopThread)   // only while it runs
        #expect(reactor.counts.jobs == 100)
    }

    @Test func afterCloseQueuedJobsComeBackAndLaterPostsRunOnThePoster() throws {
        let reactor = try Reactor()
        let ran = Guarded([Int]())
        for i in 0..<3 { reactor.post { ran.with { $0.append(i) } } }
        let left = reactor.close()
        #expect(left.count == 3)
        #expect(ran.value.isEmpty)
        for job in left { job() }
        #expect(ran.value == [0, 1, 2])
        let ranAtOnce = Guarded(false)
        let poster = TestThread {
            let done = Guarded(false)
            reactor.post { done.with { $0 = true } }
            ranAtOnce.with { $0 = done.value }   // before post returned
        }
        poster.join()
        #expect(ranAtOnce.value)
        reactor.runOnce(timeout: 0)
        // The queued posts' one write; the later post wrote none, ran nothing here.
        #expect(reactor.counts.wakes == 1)
        #expect(reactor.counts.jobs == 0)
    }

    @Test func aRepeatingTimerThatMissedThreePeriodsFiresOnce() throws {
        let reactor = try Reactor()
        let fired = Guarded(0)
        let timer = reactor.timer { fired.with { $0 += 1 } }
        let now = Reactor.now()
        // 3.5 periods ago; a long period, so the next one is far away.
        let period = min(60_000_000_000, now / 4)
        try #require(period > 1_000_000_000)
        let first = now - period * 7 / 2
        reactor.arm(timer, at: first, every: period)
        #expect(reactor.runOnce(timeout: 5))
        #expect(fired.value == 1)
        #expect(reactor.deadline(of: timer) == first + 4 * period)   // the first one after now
        #expect(!reactor.runOnce(timeout: 0))
        #expect(fired.value == 1)
        #expect(reactor.counts.timerFires == 1)
    }

    @Test func aTimerChangedByAnEarlierHandlerOfTheTurnIsNotCalled() throws {
        let reactor = try Reactor()
        let calls = Guarded([String]())
        let others = Guarded([Reactor.Timer]())
        let first = reactor.timer {
            calls.with { $0.append("first") }
            reactor.arm(others.value[0], after: 3600)   // re-armed later
            reactor.release(others.value[1])
        }
        others.with { $0 = ["rearmed", "released"].map { name in reactor.timer { calls.with { $0.append(name) } } } }
        let now = Reactor.now()
        reactor.arm(first, at: now - 3)   // all due; `first` is the earliest
        reactor.arm(others.value[0], at: now - 2)
        reactor.arm(others.value[1], at: now - 1)
        #expect(reactor.runOnce(timeout: 5))
        #expect(calls.value == ["first"])
        #expect(reactor.counts.timerFires == 1)
        #expect(reactor.deadline(of: others.value[0]) != nil)
    }

    @Test func stopFromAnotherThreadEndsRun() throws {
        let reactor = try Reactor()
        let waiting = Latch(), done = Latch()
        // stop() once the loop sleeps in its first wait: only stop's
        // wake-up can end run().
        let loopThread = Guarded<String?>(nil)
        reactor.beforeEachWait {
            loopThread.with { $0 = currentThreadPath() }
            waiting.open()
        }
        let loop = TestThread {
            reactor.run()
            done.open()
        }
        #expect(waiting.wait(seconds: 10))
        waitUntilSleeping(loopThread.value!)
        reactor.stop()
        let stopped = done.wait(seconds: 10)
        #expect(stopped)
        if !stopped {   // clean up a broken stop: any turn ends run
            reactor.wake()
            _ = done.wait(seconds: 10)
        }
        loop.join()
        #expect(reactor.counts.waits == 1)
    }

    @Test func stopFromAHookEndsThatTurnWithoutBlocking() throws {
        let reactor = try Reactor()
        // Nothing else would end the first wait: no fd ready, no timer due
        // but the safety below, which must not be what ends it.
        let safety = reactor.timer { reactor.stop() }
        reactor.arm(safety, after: 10)
        reactor.beforeEachWait { reactor.stop() }
        reactor.run()
        #expect(reactor.counts.timerFires == 0)
        #expect(reactor.counts.waits == 1)
    }

    @Test func postsOntoANonEmptyQueueMakeOneEventfdWrite() throws {
        let reactor = try Reactor()
        let ran = Guarded(0)
        for _ in 0..<5 { reactor.post { ran.with { $0 += 1 } } }
        reactor.runOnce(timeout: 5)
        #expect(ran.value == 5)
        let counts = reactor.counts
        #expect(counts.wakes == 1)
        #expect(counts.waits == 1)
        #expect(counts.jobs == 5)
    }

    @Test func aJobTheLoopPostsFromAHandlerRunsThisTurnWithoutAWake() throws {
        let reactor = try Reactor()
        let ready = TestPipe(readable: true)
        let ran = Guarded(0)
        var watch: Reactor.Watch?
        watch = reactor.watch(ready.read, .readable) { _ in
            reactor.unwatch(watch!)
            reactor.post { ran.with { $0 += 1 } }
        }
        let timer = reactor.timer { reactor.post { ran.with { $0 += 1 } } }
        reactor.arm(timer, at: Reactor.now() - 1)
        #expect(reactor.runOnce(timeout: 5))
        #expect(ran.value == 2)
        // Nothing written for them: the next wait finds nothing.
        #expect(!reactor.runOnce(timeout: 0))
        #expect(reactor.counts.wakes == 0)
        // A job posting a job: that one is next turn's, and wakes it.
        reactor.post { reactor.post { ran.with { $0 += 1 } } }
        reactor.runOnce(timeout: 5)
        #expect(ran.value == 2)
        #expect(reactor.runOnce(timeout: 5))
        #expect(ran.value == 3)
        #expect(reactor.counts.wakes == 2)
    }

    @Test func aWakeIsOneTurnWithItsHooksAndLeavesNothingBehind() throws {
        let reactor = try Reactor()
        var hooks = 0
        reactor.beforeEachWait { hooks += 1 }
        let helper = TestThread { reactor.wake() }
        #expect(reactor.runOnce(timeout: 5))
        helper.join()
        #expect(hooks == 1)
        // Drained: the next wait finds nothing.
        #expect(!reactor.runOnce(timeout: 0))
        #expect(hooks == 2)
        let counts = reactor.counts
        #expect(counts.waits == 2)
        #expect(counts.wakes == 1)
    }

    @Test func aParkedWatchIsNotPolledUntilUpdated() throws {
        let reactor = try Reactor()
        let ready = TestPipe(readable: true)
        var heard: [Reactor.Events] = []
        let watch = reactor.watch(ready.read, []) { heard.append($0) }
        _ = reactor.timer {}   // made disarmed: no wake-up either
        #expect(!reactor.runOnce(timeout: 0))
        #expect(heard.isEmpty)
        reactor.update(watch, .readable)
        #expect(reactor.runOnce(timeout: 5))
        #expect(heard == [.readable])
        // Level-triggered: still readable, heard again.
        reactor.runOnce(timeout: 5)
        #expect(heard == [.readable, .readable])
        reactor.unwatch(watch)
        #expect(!reactor.runOnce(timeout: 0))
        #expect(heard.count == 2)
    }

    @Test func aPeerHangUpIsHeardWhateverTheInterest() throws {
        let reactor = try Reactor()
        var heard: [Reactor.Events] = []
        // Only the write end's close: POLLHUP on the read end.
        var fds: [Int32] = [-1, -1]
        #expect(clinux_pipe2(&fds, O_CLOEXEC) == 0)
        close(fds[1])
        let hung = reactor.watch(fds[0], .writable) { heard.append($0) }
        #expect(reactor.runOnce(timeout: 5))
        #expect(heard == [.hangUp])
        reactor.unwatch(hung)
        close(fds[0])
    }
}
