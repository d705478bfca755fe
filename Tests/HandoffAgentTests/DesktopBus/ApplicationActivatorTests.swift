// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
#if canImport(Glibc)
import Glibc
#endif
@testable import HandoffDBus
import Testing

/// D-Bus activation of an app as a desktop launcher does it, against the
/// fake app on a private bus: running already, started by the bus from a
/// service file, or not installed at all.
@Suite struct ApplicationActivatorTests {
    @Test func namesAndPathsFollowTheDesktopEntrySpec() throws {
        let plain = try #require(DBusApplicationName(desktopID: "org.example.FooViewer.desktop"))
        #expect(plain.busName == "org.example.FooViewer")
        #expect(plain.objectPath == "/org/example/FooViewer")
        let dashed = try #require(DBusApplicationName(desktopID: "org.example.Foo-Viewer"))
        #expect(dashed.busName == "org.example.Foo-Viewer")
        #expect(dashed.objectPath == "/org/example/Foo_Viewer")
        for invalid in ["", ".desktop", "foo.desktop", "org..example", "org.2example.App", "org.ex ample.App",
                        "org.example.App.", "org/example.App", "org.exämple.App",
                        "org." + String(repeating: "a", count: 260)] {
            #expect(DBusApplicationName(desktopID: invalid) == nil, "\(invalid)")
        }
    }

    @Test func platformDataCarriesTheTokenUnderBothNames() {
        let data = ApplicationActivator.platformData(activationToken: "tok-1")
        #expect(data.map(\.0) == ["activation-token", "desktop-startup-id"])
        #expect(data.map(\.1) == [.string("tok-1"), .string("tok-1")])
        #expect(ApplicationActivator.platformData(activationToken: nil).isEmpty)
        #expect(ApplicationActivator.platformData(activationToken: "").isEmpty)
    }

    /// Activates `desktopID` and runs the bus until the answer.
    func activate(_ bus: SessionBus, _ desktopID: String, token: String?) throws -> Result<Void, DBusError>? {
        var result: Result<Void, DBusError>?
        try ApplicationActivator(bus: bus).activate(desktopID: desktopID, activationToken: token) { result = $0 }
        #expect(pump(bus) { result != nil })
        return result
    }

    @Test func aRunningAppIsActivatedAtItsDerivedPathWithTheToken() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let app = try FakeDesktop(bus: privateBus, ["--app", "org.example.Handoff-Test", "/org/example/Handoff_Test"])
        defer { app.stop() }
        let bus = try SessionBus(address: privateBus.address)
        defer { bus.close() }
        let result = try activate(bus, "org.example.Handoff-Test.desktop", token: "tok-42")
        #expect(throws: Never.self) { try result?.get() }
        let calls = app.records.filter { $0.call == "Activate" }
        #expect(calls.count == 1)
        #expect(calls.first?.path == "/org/example/Handoff_Test")
        #expect(calls.first?.destination == "org.example.Handoff-Test")
        #expect(calls.first?.platform_data == ["activation-token": .string("tok-42"), "desktop-startup-id": .string("tok-42")])
    }

    @Test func anAppThatIsNotRunningIsStartedByTheBus() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let log = privateBus.folder + "/launched.jsonl"
        try privateBus.installService(name: "org.example.Launched",
                                      exec: [try fakeDesktopProgram(), "--log", log, "--app", "org.example.Launched",
                                             "/org/example/Launched"])
        let bus = try SessionBus(address: privateBus.address)
        defer { bus.close() }
        let result = try activate(bus, "org.example.Launched", token: nil)
        #expect(throws: Never.self) { try result?.get() }
        let records = FakeDesktop.records(in: log)
        #expect(records.filter { $0.event == "ready" }.count == 1)  // started once, by the bus
        let activate = try #require(records.first { $0.call == "Activate" })
        #expect(activate.path == "/org/example/Launched")
        #expect(activate.platform_data == [:])
        // The bus's child goes with the bus; make sure of it.
        if let pid = activate.pid { kill(pid, SIGTERM) }
    }

    @Test func anAppNotInstalledIsACleanError() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let bus = try SessionBus(address: privateBus.address)
        defer { bus.close() }
        let result = try activate(bus, "org.example.NotInstalled.desktop", token: "t")
        guard case .failure(let error) = result else {
            Issue.record("activated nothing: \(String(describing: result))")
            return
        }
        #expect(error.kind == .noService)
        #expect(bus.isConnected)
    }

    @Test func anIdThatIsNoBusNameIsRefusedBeforeAnythingIsSent() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let bus = try SessionBus(address: privateBus.address)
        defer { bus.close() }
        do {
            try ApplicationActivator(bus: bus).activate(desktopID: "mapoff.desktop") { _ in }
            Issue.record("accepted an id with one element")
        } catch {
            #expect(error.kind == .invalidArgument)
        }
        #expect(bus.pendingCallCount == 0)
    }
}
