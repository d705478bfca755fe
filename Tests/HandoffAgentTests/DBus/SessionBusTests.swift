// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffAgent
@testable import HandoffDBus
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The connection itself: where the bus is found, a clean error where
/// there is none, an idle connection that asks for no wake-up, its bounds,
/// and the bus going away under it.
@Suite struct SessionBusTests {
    @Test func theAddressComesFromTheEnvironmentAsLibdbusFindsIt() {
        #expect(SessionBusAddress.resolve(["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x", "XDG_RUNTIME_DIR": "/run/user/7"])
                == "unix:path=/x")
        #expect(SessionBusAddress.resolve(["XDG_RUNTIME_DIR": "/run/user/1000"]) == "unix:path=/run/user/1000/bus")
        #expect(SessionBusAddress.resolve(["XDG_RUNTIME_DIR": "/tmp/a b,c=d"]) == "unix:path=/tmp/a%20b%2cc%3dd/bus")
        #expect(SessionBusAddress.resolve(["DBUS_SESSION_BUS_ADDRESS": ""]) == nil)
        #expect(SessionBusAddress.resolve(["XDG_RUNTIME_DIR": "relative"]) == nil)
        #expect(SessionBusAddress.resolve([:]) == nil)
    }

    @Test func noBusInTheEnvironmentIsACleanError() {
        #expect(throws: DBusError.self) { try SessionBus(environment: [:]) }
        do {
            _ = try SessionBus(environment: [:])
        } catch {
            #expect(error.kind == .noBus)
            #expect(error.message.contains("DBUS_SESSION_BUS_ADDRESS"))
        }
    }

    @Test func nothingListeningAtTheAddressIsACleanError() {
        let path = "/tmp/handoff-no-bus-\(getpid())/bus"
        for attempt in [{ try SessionBus(address: "unix:path=\(path)") },
                        { try SessionBus(environment: ["XDG_RUNTIME_DIR": "/tmp/handoff-no-bus-\(getpid())"]) }] {
            do {
                _ = try attempt()
                Issue.record("connected to nothing")
            } catch let error as DBusError {
                #expect(error.kind == .noBus)
                #expect(error.message.contains(path), "\(error)")
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func anIdleConnectionAsksForNoWakeUp() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let bus = try SessionBus(address: privateBus.address)
        defer { bus.close() }
        #expect(bus.fd >= 0)
        // Hello is a call with a deadline; once answered nothing is due.
        #expect(pump(bus) { bus.timeoutMilliseconds == -1 })
        #expect(bus.events == Int16(POLLIN))
        #expect(bus.pendingCallCount == 0)
        // A call waiting for its reply is the only deadline.
        var answered = false
        try bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                     member: "GetId", timeout: 20) { _ in answered = true }
        let wait = bus.timeoutMilliseconds
        #expect(wait > 0 && wait <= 20_000)
        #expect(pump(bus) { answered })
        #expect(bus.timeoutMilliseconds == -1)
    }

    @Test func pendingCallsAreBounded() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let bus = try SessionBus(address: privateBus.address)
        defer { bus.close() }
        var answers = 0
        for _ in 0..<SessionBus.maxPendingCalls {
            try bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                         interface: "org.freedesktop.DBus", member: "GetId", timeout: 60) { _ in answers += 1 }
        }
        do {
            try bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                         interface: "org.freedesktop.DBus", member: "GetId", timeout: 60) { _ in answers += 1 }
            Issue.record("a call past the bound was sent")
        } catch {
            #expect(error.kind == .limit)
        }
        #expect(pump(bus) { answers == SessionBus.maxPendingCalls })
        #expect(bus.pendingCallCount == 0)
    }

    @Test func whenTheBusGoesAwayPendingCallsFailAndProcessSaysSo() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let server = try FakeDesktop(bus: privateBus, ["--notifications"])
        defer { server.stop() }
        let bus = try SessionBus(address: privateBus.address)
        defer { bus.close() }
        // A call the fake never answers.
        var result: Result<Void, DBusError>?
        try bus.call(destination: "org.freedesktop.Notifications", path: "/org/handoff/Test", interface: "org.handoff.Test",
                     member: "Hang", timeout: 120) { result = $0.map { _ in () } }
        #expect(pump(bus) { server.records.contains { $0.call == "Hang" } })
        privateBus.stop()
        var alive = true
        let end = monotonicNow() + 60
        while alive && monotonicNow() < end {
            var entry = pollfd(fd: bus.fd, events: bus.events, revents: 0)
            _ = poll(&entry, 1, 100)
            alive = bus.process()
        }
        #expect(!alive)
        #expect(!bus.isConnected)
        #expect(bus.fd == -1)
        #expect(bus.pendingCallCount == 0)
        if case .failure(let error) = result {
            #expect(error.kind == .disconnected, "\(error)")
        } else {
            Issue.record("the pending call was not failed: \(String(describing: result))")
        }
        #expect(throws: DBusError.self) {
            try bus.call(destination: "org.freedesktop.DBus", path: "/", interface: "org.freedesktop.DBus",
                         member: "GetId", timeout: 1) { _ in }
        }
    }
}
