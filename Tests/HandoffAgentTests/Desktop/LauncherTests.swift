// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffContinuity
@testable import HandoffDBus
import HandoffModel
import Testing
@testable import HandoffAgent

// Launching for real: a script installed with a desktop entry in a
// temporary data directory is found by the registry and started by the
// launcher; it writes what it was given to a marker file and waits (at
// most 60 s) for the test to release it. No shell is involved but the
// script's own interpreter.

/// Writes its arguments and working directory, one per line, then waits
/// for `<marker>.release`.
let markerScript = """
#!/bin/sh
marker="$1"; shift
{ for a in "$@"; do printf '%s\\n' "$a"; done; printf 'cwd=%s\\n' "$(pwd)"; } > "$marker.tmp" && mv "$marker.tmp" "$marker"
i=0
while [ ! -e "$marker.release" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
"""

/// Fields of /proc/<pid>/stat after the command name: state, ppid, pgrp, session.
func processStatus(_ pid: Int32) -> (state: Character, ppid: Int32, session: Int32)? {
    guard let text = TemporaryTree.readFile("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 4, let state = fields[0].first, let ppid = Int32(fields[1]), let session = Int32(fields[3]) else { return nil }
    return (state, ppid, session)
}

func linkTarget(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink(path, &buffer, buffer.count - 1)
    guard n >= 0 else { return nil }
    return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Our children that are zombies forked by this thread (a middle process
/// never execs, so it keeps the name of the thread that forked it; the
/// tests are synchronous, so they run on one thread throughout). Read from
/// every /proc/<pid>/stat: /proc/self/task/*/children is not on every kernel.
func ownZombieChildren() -> [Int32] {
    let comm = TemporaryTree.readFile("/proc/thread-self/comm") ?? ""
    let me = getpid()
    var zombies: [Int32] = []
    for name in DesktopFileScanner.list("/proc") ?? [] {
        guard let pid = Int32(name), let status = processStatus(pid), status.ppid == me, status.state == "Z" else { continue }
        if TemporaryTree.readFile("/proc/\(pid)/comm") == comm { zombies.append(pid) }
    }
    return zombies
}

/// True once no such zombie is there: another test may be between its fork
/// and its waitpid at the moment we look, but a leaked zombie stays.
func noZombieChildrenLeft() -> Bool {
    eventually(within: 10) { ownZombieChildren().isEmpty }
}

/// Records what the launcher asks of D-Bus and answers at once.
final class RecordingActivator: DBusActivating {
    var calls: [(desktopID: String, token: String?)] = []
    var answer: Result<Void, HandoffError> = .success(())
    var refuse: HandoffError?
    func activateApplication(desktopID: String, activationToken: String?,
                             completion: @escaping (Result<Void, HandoffError>) -> Void) throws(HandoffError) {
        if let refuse { throw refuse }
        calls.append((desktopID, activationToken))
        completion(answer)
    }
}

@Suite struct LauncherTests {
    @Test func launchesTheEntrysExecDetached() throws {
        let t = TemporaryTree("handoff-launch")
        t.write("data/bin/fake app", markerScript, mode: 0o755)
        let marker = t.path("marker")
        t.write("data/applications/org.example.Fake.desktop", """
        [Desktop Entry]
        Type=Application
        Name=Fake
        Exec="\(t.path("data/bin/fake app"))" "\(marker)" --flag "two words" "a\\\\$b" %U
        Path=\(t.path("data"))
        X-Handoff-TeamIdentifier=TEAMA
        X-Handoff-ActivityTypes=com.example.fake;
        """)
        let registry = InstalledApps(directories: XDGDataDirectories(directories: [t.path("data")], searchPath: ["/usr/bin", "/bin"]))
        #expect(registry.warnings == [])
        let app = try #require(registry.apps(continuing: "TEAMA", type: "com.example.fake").first)

        // A descriptor that is not close-on-exec must not reach the app.
        var leak: [Int32] = [-1, -1]
        #expect(pipe(&leak) == 0)
        defer { close(leak[0]); close(leak[1]) }
        let leaked = linkTarget("/proc/self/fd/\(leak[1])")

        let launch = try Launcher(dbus: nil, searchPath: ["/usr/bin", "/bin"]).launch(app)
        guard case .process(let pid) = launch else { Issue.record("\(launch)"); return }
        #expect(pid > 0)
        #expect(noZombieChildrenLeft(), "the middle process was not reaped")

        #expect(eventually { t.exists("marker") }, "the app never wrote its marker")
        #expect(t.read("marker") == "--flag\ntwo words\na$b\ncwd=\(t.path("data"))\n")

        // Detached: not our child, not in our session, stdio on /dev/null.
        let status = try #require(processStatus(pid), "the app exited before releasing")
        #expect(status.ppid != getpid())
        #expect(status.session != getsid(0))
        for fd in 0...2 { #expect(linkTarget("/proc/\(pid)/fd/\(fd)") == "/dev/null") }
        let open = (DesktopFileScanner.list("/proc/\(pid)/fd") ?? []).compactMap { linkTarget("/proc/\(pid)/fd/\($0)") }
        #expect(leaked != nil && !open.contains(leaked!), "\(open)")

        t.write("marker.release", "")
        #expect(eventually { processStatus(pid).map { $0.state == "Z" } ?? true }, "the app did not end")
    }

    @Test func failuresToStartAreErrors() throws {
        let t = TemporaryTree("handoff-launch")
        t.write("bin/bad-interpreter", "#!/nonexistent/interpreter\n", mode: 0o755)
        t.write("bin/not-executable", "#!/bin/sh\n", mode: 0o644)
        let launcher = Launcher(dbus: nil, searchPath: [t.path("bin")])
        func error(_ exec: String, in directory: String? = nil) -> HandoffError? {
            failure { _ = try launcher.run(ExecCommandLine(exec), in: directory, for: "x.desktop") }
        }
        #expect(error("/nonexistent/app")?.message == "x.desktop: Exec program \"/nonexistent/app\" is not an executable file")
        #expect(error("missing-app")?.message == "x.desktop: Exec program \"missing-app\" is not an executable file in PATH (\(t.path("bin")))")
        #expect(error("not-executable")?.code == .handoffFailed)
        #expect(error("bad-interpreter")?.message == "cannot start \(t.path("bin/bad-interpreter")): No such file or directory")
        #expect(error("/bin/true", in: "/nonexistent")?.message == "cannot start /bin/true in /nonexistent: No such file or directory")
        #expect(noZombieChildrenLeft())
    }

    @Test func dbusActivatableAppsAreActivated() throws {
        let t = TemporaryTree("handoff-launch")
        t.write("data/applications/org.example.Activatable-App.desktop", """
        [Desktop Entry]
        Type=Application
        DBusActivatable=true
        Exec=/bin/true
        X-Handoff-TeamIdentifier=TEAMA
        X-Handoff-ActivityTypes=a.b;
        """)
        t.write("data/applications/org.example.BusOnly.desktop", """
        [Desktop Entry]
        Type=Application
        DBusActivatable=true
        X-Handoff-TeamIdentifier=TEAMA
        X-Handoff-ActivityTypes=a.b;
        """)
        let registry = InstalledApps(directories: XDGDataDirectories(directories: [t.path("data")], searchPath: ["/bin"]))
        let both = try #require(registry.app(bundleIdentifier: "org.example.Activatable-App"))
        let busOnly = try #require(registry.app(bundleIdentifier: "org.example.BusOnly"))

        let activator = RecordingActivator()
        let launcher = Launcher(dbus: activator, searchPath: ["/bin"])
        var outcome: Launcher.Outcome?
        let name = try #require(DBusApplicationName(desktopID: "org.example.Activatable-App.desktop"))
        #expect(try launcher.launch(both, activationToken: "tok-1") { outcome = $0 } == .dbus(name))
        #expect(activator.calls.count == 1)
        #expect(activator.calls.first?.desktopID == "org.example.Activatable-App.desktop" && activator.calls.first?.token == "tok-1")
        #expect(outcome == .activated)

        // An error answer: the Exec when there is one, else the error.
        activator.answer = .failure(HandoffError(.handoffFailed, "no such name"))
        outcome = nil
        _ = try launcher.launch(busOnly) { outcome = $0 }
        #expect(activator.calls.count == 2 && activator.calls.last?.token == nil)
        #expect(outcome == .failed(HandoffError(.handoffFailed, "no such name")))
        outcome = nil
        #expect(try launcher.launch(both) { outcome = $0 } == .dbus(name))
        guard case .processInstead(let pid, let why)? = outcome else { Issue.record("\(String(describing: outcome))"); return }
        #expect(pid > 0 && why.message == "no such name")

        // The call cannot be sent: the Exec at once, else the error.
        activator.refuse = HandoffError(.connectionUnavailable, "the bus is gone")
        #expect(failure { _ = try launcher.launch(busOnly) }?.code == .connectionUnavailable)
        outcome = nil
        guard case .processInstead(_, let refused) = try launcher.launch(both, completion: { outcome = $0 }) else {
            Issue.record("not started by Exec"); return
        }
        #expect(refused.message == "the bus is gone" && outcome == nil)

        // Without a session bus: the Exec when there is one.
        let noBus = Launcher(dbus: nil, searchPath: ["/bin"])
        guard case .process = try noBus.launch(both) else { Issue.record("not started by Exec"); return }
        #expect(failure { _ = try noBus.launch(busOnly) }?.code == .connectionUnavailable)
        #expect(noZombieChildrenLeft())
    }

    /// The token of the person's click reaches an Exec program's
    /// environment under both names.
    @Test func execProgramsGetTheActivationToken() throws {
        let t = TemporaryTree("handoff-launch")
        let marker = t.path("marker")
        t.write("bin/show-token", """
            #!/bin/sh
            printf '%s|%s\\n' "${XDG_ACTIVATION_TOKEN-unset}" "${DESKTOP_STARTUP_ID-unset}" > "\(marker).tmp" && mv "\(marker).tmp" "\(marker)"
            """, mode: 0o755)
        let launcher = Launcher(dbus: nil, searchPath: [t.path("bin")])
        _ = try launcher.run(ExecCommandLine("show-token"), for: "x.desktop", activationToken: "tok-9")
        #expect(eventually { t.exists("marker") })
        #expect(t.read("marker") == "tok-9|tok-9\n")
        t.remove("marker")
        _ = try launcher.run(ExecCommandLine("show-token"), for: "x.desktop")
        #expect(eventually { t.exists("marker") })
        #expect(t.read("marker") == "unset|unset\n")
        #expect(noZombieChildrenLeft())
    }

    /// A program someone still holds open for writing (as a process forked
    /// while a test or an installer was writing it does, until it execs or
    /// exits) starts once they let go: exec is tried again on ETXTBSY,
    /// "Text file busy", a bounded number of times.
    @Test func aProgramStillOpenForWritingStartsOnceLetGo() throws {
        let t = TemporaryTree("handoff-launch")
        let marker = t.path("marker")
        t.write("bin/busy", "#!/bin/sh\n: > \"\(marker)\"\n", mode: 0o755)
        let writer = open(t.path("bin/busy"), O_WRONLY | O_CLOEXEC)
        try #require(writer >= 0)
        // Let go 50 ms after the launch begins, from a thread of its own.
        #expect(startDetachedThread { usleep(50_000); close(writer) })
        _ = try Launcher(dbus: nil, searchPath: [t.path("bin")]).run(ExecCommandLine("busy"), for: "x.desktop")
        #expect(eventually { t.exists("marker") })
        #expect(noZombieChildrenLeft())
    }

    /// The launcher through the agent's real D-Bus part, on a private bus
    /// that starts the (fake) app from a service file.
    @Test func dbusActivationThroughTheAgentsBus() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let log = privateBus.folder + "/launched.jsonl"
        try privateBus.installService(name: "org.example.Launched",
                                      exec: [try fakeDesktopProgram(), "--log", log, "--app", "org.example.Launched", "/org/example/Launched"])
        let t = TemporaryTree("handoff-launch")
        let entry = """
        [Desktop Entry]
        Type=Application
        DBusActivatable=true
        X-Handoff-TeamIdentifier=TEAMA
        X-Handoff-ActivityTypes=a.b;
        """
        t.write("data/applications/org.example.Launched.desktop", entry)
        t.write("data/applications/org.example.Absent.desktop", entry)
        let registry = InstalledApps(directories: XDGDataDirectories(directories: [t.path("data")], searchPath: ["/bin"]))
        let app = try #require(registry.app(bundleIdentifier: "org.example.Launched"))
        let absent = try #require(registry.app(bundleIdentifier: "org.example.Absent"))
        let bus = try SessionBus(address: privateBus.address)
        defer { bus.close() }
        let launcher = Launcher(dbus: ApplicationActivator(bus: bus))

        var outcome: Launcher.Outcome?
        let launch = try launcher.launch(app, activationToken: "tok-7") { outcome = $0 }
        #expect(launch == .dbus(try #require(DBusApplicationName(desktopID: "org.example.Launched"))))
        #expect(pump(bus) { outcome != nil })
        #expect(outcome == .activated)
        let activate = try #require(FakeDesktop.records(in: log).first { $0.call == "Activate" })
        #expect(activate.path == "/org/example/Launched")
        #expect(activate.platform_data == ["activation-token": .string("tok-7"), "desktop-startup-id": .string("tok-7")])
        if let pid = activate.pid { kill(pid, SIGTERM) }

        // An app the bus cannot start: the error comes to the completion.
        outcome = nil
        _ = try launcher.launch(absent) { outcome = $0 }
        #expect(pump(bus) { outcome != nil })
        guard case .failed(let error)? = outcome else { Issue.record("\(String(describing: outcome))"); return }
        #expect(error.code == .handoffFailed)
        #expect(error.message.hasPrefix("D-Bus activation of org.example.Absent.desktop: "), "\(error.message)")
    }
}

extension TemporaryTree {
    static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "re") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

