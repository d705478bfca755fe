// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffModel
@testable import HandoffRuntime
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct HostQueueTests {
    @Test func fdIsReadableExactlyWhileWorkIsPending() throws {
        let q = try HostQueue()
        #expect(!isReadable(q.fd))
        #expect(q.nextTimeoutMilliseconds == -1)
        q.post {}
        q.post {}
        #expect(isReadable(q.fd))
        #expect(q.nextTimeoutMilliseconds == 0)
        #expect(try q.dispatch() == 2)
        #expect(!isReadable(q.fd))
        #expect(try q.dispatch() == 0)
    }

    @Test func jobsRunOnlyInsideDispatchInOrder() throws {
        let q = try HostQueue()
        let log = Log()
        for i in 0..<5 { q.post { log.add("\(i)") } }
        #expect(log.all.isEmpty)
        try q.dispatch()
        #expect(log.all == ["0", "1", "2", "3", "4"])
    }

    @Test func jobsPostedFromOtherThreadsRunOnTheOwner() throws {
        let q = try HostQueue()
        let owner = pthread_self()
        let ranOnOwner = Atomic(0)
        _ = onOtherThread {
            for _ in 0..<100 {
                q.post { if pthread_equal(owner, pthread_self()) != 0 { ranOnOwner.add(1, ordering: .relaxed) } }
            }
            return true
        }
        #expect(isReadable(q.fd))
        #expect(try q.dispatch() == 100)
        let onOwner = ranOnOwner.load(ordering: .relaxed)
        #expect(onOwner == 100)
    }

    @Test func dispatchOffTheOwnerThreadIsRefusedAndRunsNothing() throws {
        let q = try HostQueue()
        let ran = Atomic(false)
        q.post { ran.store(true, ordering: .relaxed) }
        let code = onOtherThread { () -> Int32 in
            do throws(HandoffError) { try q.dispatch(); return 0 } catch { return error.code.rawValue }
        }
        #expect(code == HandoffError.Code.wrongThread.rawValue)
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
        #expect(isReadable(q.fd))
    }

    @Test func nestedDispatchIsRefusedAndWorkPostedDuringDispatchWaits() throws {
        let q = try HostQueue()
        let log = Log()
        q.post {
            do throws(HandoffError) { try q.dispatch() } catch { log.add("nested:\(error.code.rawValue)") }
            q.post { log.add("later") }
        }
        try q.dispatch()
        #expect(log.all == ["nested:\(HandoffError.Code.invalidState.rawValue)"])
        #expect(isReadable(q.fd))
        try q.dispatch()
        #expect(log.all.last == "later")
        #expect(!isReadable(q.fd))
    }

    @Test func timersFireThroughTheFdAndCanBeCancelled() throws {
        let q = try HostQueue()
        let log = Log()
        q.schedule(after: 0.05) { log.add("timer") }
        let cancelled = q.schedule(after: 0.01) { log.add("cancelled") }
        q.cancel(cancelled)
        let timeout = q.nextTimeoutMilliseconds
        #expect(timeout > 0 && timeout <= 50)
        #expect(!isReadable(q.fd))
        try q.dispatch()
        #expect(log.all.isEmpty)
        var p = pollfd(fd: q.fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&p, 1, 2000) == 1)
        #expect(q.nextTimeoutMilliseconds == 0)
        try q.dispatch()
        #expect(log.all == ["timer"])
        #expect(!isReadable(q.fd))
        #expect(q.nextTimeoutMilliseconds == -1)
    }

    @Test func runStopsOnStopAndOnTimeout() throws {
        let q = try HostQueue()
        #expect(try q.run(timeoutMilliseconds: 20) == false)
        let log = Log()
        q.post { log.add("a") }
        q.post { q.stop() }
        #expect(try q.run(timeoutMilliseconds: 5000) == true)
        #expect(log.all == ["a"])
        // A stop from another thread wakes a blocked run.
        var thread = pthread_t()
        let ctx = Unmanaged.passRetained(q).toOpaque()
        pthread_create(&thread, nil, { raw in
            let q = Unmanaged<HostQueue>.fromOpaque(raw!).takeRetainedValue()
            usleep(20_000)
            q.stop()
            return nil
        }, ctx)
        #expect(try q.run(timeoutMilliseconds: -1) == true)
        pthread_join(thread, nil)
    }
}

/// `watch`: a descriptor joins the application fd; its handler runs inside
/// dispatch, on the owner thread, only while it is readable.
@Suite struct HostQueueWatchTests {
    @Test func aWatchedDescriptorWakesTheFdAndRunsItsHandlerInDispatch() throws {
        let q = try HostQueue()
        var fds: [Int32] = [-1, -1]
        #expect(clinux_pipe2(&fds, O_CLOEXEC | O_NONBLOCK) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let runs = Atomic(0)
        let reader = fds[0]
        let watch = try q.watch(reader) {
            var byte: UInt8 = 0
            while read(reader, &byte, 1) == 1 {}
            runs.add(1, ordering: .relaxed)
        }
        #expect(!isReadable(q.fd))
        var one: UInt8 = 1
        _ = write(fds[1], &one, 1)
        #expect(isReadable(q.fd))
        #expect(runs.load(ordering: .relaxed) == 0, "nothing runs outside dispatch")
        #expect(try q.dispatch() == 1)
        #expect(runs.load(ordering: .relaxed) == 1)
        #expect(!isReadable(q.fd), "drained: the fd is quiet again")
        q.unwatch(watch)
        _ = write(fds[1], &one, 1)
        #expect(!isReadable(q.fd))
        #expect(try q.dispatch() == 0)
        q.unwatch(watch)  // harmless
    }
}
