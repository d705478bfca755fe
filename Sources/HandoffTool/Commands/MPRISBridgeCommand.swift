// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBridges
import HandoffDBus
import HandoffJSON
import HandoffAgent
import HandoffBase
import HandoffContinuity
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// `handoff mpris-bridge`: media players (MPRIS on the session bus) as a
/// Handoff app, through the agent (docs/mpris.md).
enum MPRISBridgeCommand: Command {
    static let name = "mpris-bridge"
    static let summary = "offer what your media player plays to your other devices"
    static let synopsis = ["mpris-bridge [--bus ADDRESS]"]
    static let details = """
        Runs until SIGTERM or SIGINT as the app org.libhandoff.media of team
        LIBHANDOFF, through the handoff agent. It watches the media players on the
        session bus (MPRIS) and offers the track of the one playing as
        org.libhandoff.media.playing, with its position; another device continues
        it in its own player at that position, and the player here pauses. It also
        continues such activities from other devices. Files are offered only
        when they are under your home directory (the other device opens the same
        path under its home). Logs one JSON line per event to stderr. The last
        reason nothing was offered is kept for `handoff doctor`. See docs/mpris.md.
        """
    static let options: [OptionSpec] = [
        .value("--bus", "ADDRESS", "the D-Bus address of the session bus (default: the environment's)"),
    ]

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        let start = BridgeStart(command: name, bridge: "mpris", environment: ["HOME", "XDG_RUNTIME_DIR"])
        let home = start.home, log = start.log
        let bus: SessionBus
        do {
            bus = try SessionBus(address: arguments.value("--bus"))
        } catch {
            throw HandoffError(.handoffFailed, "mpris-bridge: \(error.message)")
        }
        let session = try start.connect(agentOnly: "the MPRIS bridge runs through the handoff agent only")
        let manifest = try Manifest(bundleIdentifier: MPRISActivityInfo.bundle, teamIdentifier: MPRISActivityInfo.team,
                                    activityTypes: [MPRISActivityInfo.type])
        let service = try session.service(manifest)
        let loop = session.loop
        let watcher = MPRISWatcher(bus: bus)
        let timers = MPRISTimers(reactor: loop)
        let receiver = MPRISReceiver(watcher: watcher, timers: timers, home: home)
        let app = try Application(manifest: manifest, delegate: receiver, continuity: service)
        defer { service.detach() }
        let bridge = MPRISBridge(watcher: watcher, home: home, environment: start.environment)
        bridge.application = app
        watcher.log = log
        bridge.log = log
        receiver.log = log
        watcher.onChange = { bridge.update() }
        try watcher.start()
        log(["event": "started", "home": .string(home)])
        bridge.update()

        let status = runLoop(session, app: app, bus: bus)
        bridge.resign(reason: "the bridge stopped")
        _ = try? app.dispatch()
        bus.close()
        return status
    }

    /// The bridge's main thread: one reactor watching the application's
    /// queue (as any host watches its fd), the session bus (its events and
    /// its timeout, looked at again before each wait) and the signal pipe,
    /// plus `MPRISTimers`. Returns the exit status: 1 when the bus went away.
    private static func runLoop(_ session: BridgeSession, app: Application, bus: SessionBus) -> Int32 {
        let loop = session.loop, log = session.log
        var status = ExitCode.ok
        func processBus() {
            guard bus.process() else {
                log(["event": "bus-gone"])
                status = 1
                return loop.stop()
            }
        }
        let queueWatch = loop.watch(app.queue.fd, .readable) { _ in _ = try? app.dispatch() }
        var busFD = bus.fd
        var busWatch = loop.watch(busFD, Reactor.Events(rawValue: bus.events)) { _ in processBus() }
        let signalWatch = session.stopOnSignal()
        // sd-bus's timeout (0: process now, once; -1: none) re-arms one timer.
        nonisolated(unsafe) let processBusLater = processBus
        let busTimer = loop.timer { processBusLater() }
        loop.beforeEachWait {
            if bus.fd != busFD {
                loop.unwatch(busWatch)
                busFD = bus.fd
                busWatch = loop.watch(busFD, Reactor.Events(rawValue: bus.events)) { _ in processBus() }
            } else {
                loop.update(busWatch, Reactor.Events(rawValue: bus.events))
            }
            // No syscall unless the earliest deadline moved; none while idle.
            let ms = bus.timeoutMilliseconds
            loop.arm(busTimer, at: ms < 0 ? nil : Monotonic.now() + UInt64(ms) * 1_000_000)
        }
        // The first look, before any wait (the old loop's first turn).
        _ = try? app.dispatch()
        processBus()
        if status == ExitCode.ok { loop.run() }
        loop.unwatch(queueWatch)
        loop.unwatch(busWatch)
        loop.unwatch(signalWatch)
        loop.release(busTimer)
        return status
    }
}
