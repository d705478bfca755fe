// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `wait(_:for:until:cancel:)`, the one bounded wait on a single fd: what
/// it returns for each way a wait ends. Bounds, never timings: a deadline
/// is only checked not to be cut short.
@Suite struct BoundedWaitTests {
    static let readable = Int16(POLLIN)

    @Test func aReadyFdIsReady() {
        let pipe = TestPipe(readable: true)
        #expect(wait(pipe.read, for: Self.readable, until: Deadline(after: 5)) == .ready)
        #expect(wait(pipe.write, for: Int16(POLLOUT), until: Deadline(after: .infinity)) == .ready)
    }

    @Test func aHangUpIsReadyForTheNextCallToSay() {
        let pipe = TestPipe()
        pipe.closeWriteEnd()
        #expect(wait(pipe.read, for: Self.readable, until: Deadline(after: 5)) == .ready)
    }

    @Test func aDeadlineAlreadyPassedLooksAtNothing() {
        let pipe = TestPipe(readable: true)
        #expect(wait(pipe.read, for: Self.readable, until: Deadline(after: 0)) == .timedOut)
    }

    @Test func anIdleFdTimesOutNotBeforeTheDeadline() {
        let pipe = TestPipe()
        let deadline = Deadline(after: 0.05)
        #expect(wait(pipe.read, for: Self.readable, until: deadline) == .timedOut)
        #expect(monotonicSeconds() >= deadline.end)
        #expect(wait(pipe.read, for: Self.readable, until: Deadline(at: monotonicSeconds() + 0.02)) == .timedOut)
    }

    @Test func theCancelFdWinsOverAReadyFd() {
        let pipe = TestPipe(readable: true), cancel = TestPipe(readable: true), idle = TestPipe()
        #expect(wait(pipe.read, for: Self.readable, until: Deadline(after: 5), cancel: cancel.read) == .cancelled)
        #expect(wait(idle.read, for: Self.readable, until: Deadline(after: 5), cancel: cancel.read) == .cancelled)
        #expect(wait(pipe.read, for: Self.readable, until: Deadline(after: 5), cancel: idle.read) == .ready)
    }

    /// Signals interrupt the poll (SIGURG with a handler: EINTR) several
    /// times; the wait goes on and sees the byte written after them.
    @Test func aSignalWaitsOn() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in signalsHandled += 1 }
        sigemptyset(&action.sa_mask)
        var old = sigaction()
        sigaction(SIGURG, &action, &old)
        defer { sigaction(SIGURG, &old, nil) }

        let pipe = TestPipe()
        let fd = pipe.read
        let outcome = Guarded<(thread: pthread_t?, result: WaitResult?)>((nil, nil))
        let waiter = TestThread {
            var urgent = sigset_t()
            sigemptyset(&urgent)
            sigaddset(&urgent, SIGURG)
            pthread_sigmask(SIG_UNBLOCK, &urgent, nil)  // the test runner's threads may block it
            outcome.with { $0.thread = pthread_self() }
            let result = wait(fd, for: Self.readable, until: Deadline(after: 30))
            outcome.with { $0.result = result }
        }
        var thread: pthread_t?
        for _ in 0..<1000 where thread == nil {
            thread = outcome.with { $0.thread }
            usleep(1000)
        }
        guard let thread else { Issue.record("the waiting thread did not start"); return }
        for _ in 0..<5 {
            usleep(20_000)  // the waiter is in poll by now (a signal before it only runs the handler)
            pthread_kill(thread, SIGURG)
        }
        pipe.fill()
        waiter.join()
        #expect(outcome.with { $0.result } == .ready)
        #expect(signalsHandled >= 1)
    }
}

/// SIGURGs handled (by the waiting thread alone: written there, read after the join).
nonisolated(unsafe) private var signalsHandled = 0
