// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffModel
import Testing
@testable import HandoffAgent

/// The launcher through its own session bus (`LaunchBus`), on a private
/// dbus-daemon: D-Bus activation falling back to Exec (no service, no
/// answer in time, no bus), and systemd scopes asked of a fake user manager
/// (fake_notifications --systemd).
@Suite struct LaunchBusTests {
    /// A registry holding one entry `<id>.desktop` with these lines.
    func entry(_ id: String, _ lines: String) throws -> (TemporaryTree, InstalledApp) {
        let t = TemporaryTree("handoff-launchbus")
        t.write("data/applications/\(id).desktop", """
            [Desktop Entry]
            Type=Application
            \(lines)
            X-Handoff-TeamIdentifier=TEAMA
            X-Handoff-ActivityTypes=a.b;
            """)
        let registry = InstalledApps(directories: XDGDataDirectories(directories: [t.path("data")], searchPath: ["/bin", "/usr/bin"]))
        return (t, try #require(registry.app(bundleIdentifier: id)))
    }

    @Test func scopeUnitNamesAreEscapedAndBounded() {
        #expect(SystemdScopes.unitName(desktopID: "org.example.My-App.desktop", random: 0xab)
                == "app-handoff-org.example.My\\x2dApp-00000000000000ab.scope")
        #expect(SystemdScopes.unitName(desktopID: ".hidden app", random: 1)
                == "app-handoff-\\x2ehidden\\x20app-0000000000000001.scope")
        #expect(SystemdScopes.unitName(desktopID: "é.b", random: .max) == "app-handoff-\\xc3\\xa9.b-ffffffffffffffff.scope")
        #expect(SystemdScopes.unitName(desktopID: String(repeating: "a", count: 220), random: 1)?.utf8.count == 255)
        #expect(SystemdScopes.unitName(desktopID: String(repeating: "a", count: 221), random: 1) == nil)
        #expect(SystemdScopes.unitName(desktopID: ".desktop", random: 1) == nil)
    }

    @Test func activationTokensAreCheckedAndReplaceInheritedOnes() {
        #expect(ActivationToken.checked("abc-123_X") == "abc-123_X")
        #expect(ActivationToken.checked(String(repeating: "t", count: 256))?.utf8.count == 256)
        for bad in ["", String(repeating: "t", count: 257), "a\nb", "a\u{7F}", "\u{1B}[0m"] {
            #expect(ActivationToken.checked(bad) == nil, "\(bad.debugDescription)")
        }
        let base = ["PATH=/bin", "XDG_ACTIVATION_TOKEN=old", "DESKTOP_STARTUP_ID=old", "XDG_ACTIVATION_TOKENS=kept"]
        #expect(ActivationToken.environment(base, token: nil) == ["PATH=/bin", "XDG_ACTIVATION_TOKENS=kept"])
        #expect(ActivationToken.environment(base, token: "new")
                == ["PATH=/bin", "XDG_ACTIVATION_TOKENS=kept", "XDG_ACTIVATION_TOKEN=new", "DESKTOP_STARTUP_ID=new"])
        #expect(ActivationToken.environment(base, token: "bad\ntoken") == ["PATH=/bin", "XDG_ACTIVATION_TOKENS=kept"])
    }

    @Test func activationFailingFallsBackToExec() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        // Started by the bus, it never takes its name: only our timeout ends the wait.
        try privateBus.installService(name: "org.example.Slow", exec: ["/bin/sleep", "60"])
        let bus = LaunchBus(address: privateBus.address, activationTimeout: 1)
        defer { bus.loopWillStop() }
        let launcher = Launcher(dbus: bus, searchPath: ["/bin", "/usr/bin"])

        for (id, reason) in [("org.example.Absent", "ServiceUnknown"), ("org.example.Slow", "NoReply")] {
            let (_, app) = try entry(id, "DBusActivatable=true\nExec=/bin/true")
            var outcome: Launcher.Outcome?
            #expect(try launcher.launch(app) { outcome = $0 } == .dbus(try #require(DBusApplicationName(desktopID: id))))
            #expect(pump(bus) { outcome != nil })
            guard case .processInstead(let pid, let error)? = outcome else { Issue.record("\(id): \(String(describing: outcome))"); continue }
            #expect(pid > 0)
            #expect(error.message.contains(reason), "\(id): \(error.message)")
        }

        // A D-Bus-only app has nothing to fall back on.
        let (_, busOnly) = try entry("org.example.Gone", "DBusActivatable=true")
        var outcome: Launcher.Outcome?
        _ = try launcher.launch(busOnly) { outcome = $0 }
        #expect(pump(bus) { outcome != nil })
        guard case .failed(let error)? = outcome else { Issue.record("\(String(describing: outcome))"); return }
        #expect(error.code == .handoffFailed && error.message.contains("ServiceUnknown"), "\(error.message)")
        #expect(noZombieChildrenLeft())
    }

    @Test func withoutABusTheExecStartsAtOnce() throws {
        let bus = LaunchBus(address: "unix:path=/nonexistent/handoff-test-bus")
        let launcher = Launcher(dbus: bus, scopes: bus, searchPath: ["/bin", "/usr/bin"])
        let (_, app) = try entry("org.example.NoBus", "DBusActivatable=true\nExec=/bin/true")
        guard case .processInstead(let pid, let error) = try launcher.launch(app) else { Issue.record("not by Exec"); return }
        #expect(pid > 0 && error.code == .connectionUnavailable, "\(error)")
        let (_, busOnly) = try entry("org.example.NoBusOnly", "DBusActivatable=true")
        #expect(failure { _ = try launcher.launch(busOnly) }?.code == .connectionUnavailable)
        #expect(bus.fd == -1)
        #expect(noZombieChildrenLeft())
    }

    @Test func execProgramsAreMovedIntoAScopeWhenAUserManagerIsOnTheBus() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let systemd = try FakeDesktop(bus: privateBus, ["--systemd"])
        defer { systemd.stop() }
        let bus = LaunchBus(address: privateBus.address)
        defer { bus.loopWillStop() }
        var launcher = Launcher(dbus: bus, scopes: bus, searchPath: ["/bin", "/usr/bin"])
        var scoped: [(Int32, Result<String, HandoffError>)] = []
        launcher.onScope = { _, pid, result in scoped.append((pid, result)) }
        let (_, app) = try entry("org.example.Scoped-App", "Exec=/bin/true")

        guard case .process(let pid) = try launcher.launch(app) else { Issue.record("not by Exec"); return }
        #expect(pump(bus) { !scoped.isEmpty })
        let unit = try #require(try scoped.first?.1.get())
        #expect(scoped.first?.0 == pid)
        #expect(unit.hasPrefix("app-handoff-org.example.Scoped\\x2dApp-") && unit.hasSuffix(".scope"), "\(unit)")
        #expect(eventually { systemd.records.contains { $0.call == "StartTransientUnit" } })
        let asked = try #require(systemd.records.first { $0.call == "StartTransientUnit" })
        #expect(asked.name == unit && asked.mode == "fail" && asked.pids == [pid])

        // A bus without a user manager: the program stays where it is.
        let otherBus = try PrivateBus()
        defer { otherBus.stop() }
        let noManager = LaunchBus(address: otherBus.address)
        defer { noManager.loopWillStop() }
        launcher.scopes = noManager
        guard case .process(let second) = try launcher.launch(app) else { Issue.record("not by Exec"); return }
        #expect(pump(noManager) { scoped.count == 2 })
        guard case .failure(let error) = scoped.last?.1 else { Issue.record("\(scoped)"); return }
        #expect(scoped.last?.0 == second)
        #expect(error.message.contains("no systemd user manager"), "\(error.message)")
        #expect(noZombieChildrenLeft())
    }
}
