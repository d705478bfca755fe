// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffJSON
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The documents bridge's main thread: one reactor over the applications'
/// queues, the signal pipe, one inotify descriptor (the data folder, for
/// `recently-used.xbel` replaced by rename or rewritten, and KDE's
/// `RecentDocuments` folder) and the pidfd of the offered app's process.
/// A change is looked at `settle` seconds after the last event (GLib
/// rewrites the file for each document, several in a row), by a timer.
final class DocumentsLoop: @unchecked Sendable {
    // @unchecked: everything here runs on the loop thread (timer handlers too).
    static let settle = 0.2
    static let xbelName = "recently-used.xbel"
    /// How often a missing data folder is looked for again.
    static let retry = 5.0

    let loop: Reactor
    let bridge: DocumentsBridge
    let log: (JSONObject) -> Void
    private let stopOnSignal: () -> Reactor.Watch
    private var inotify: Int32 = -1
    private var dataWatch: Int32 = -1
    private var kdeWatch: Int32 = -1
    private var watched: [Reactor.Watch] = []
    private var process: (pid: Int32, fd: Int32, watch: Reactor.Watch)?
    private var updateTimer: Reactor.Timer?
    private var retryTimer: Reactor.Timer?

    /// `stopOnSignal` watches the signal pipe (`BridgeSession.stopOnSignal`).
    init(loop: Reactor, bridge: DocumentsBridge, log: @escaping (JSONObject) -> Void,
         stopOnSignal: @escaping () -> Reactor.Watch) {
        self.loop = loop
        self.bridge = bridge
        self.log = log
        self.stopOnSignal = stopOnSignal
    }

    func watchQueue(of application: Application) {
        watched.append(loop.watch(application.queue.fd, .readable) { _ in _ = try? application.dispatch() })
    }

    /// Watches `pid` for its exit (pidfd); nil stops watching.
    func watchProcess(_ pid: Int32?) {
        if let process, process.pid == pid { return }
        if let old = process {
            loop.unwatch(old.watch)
            close(old.fd)
            process = nil
        }
        guard let pid, let fd = DocumentsProcesses.exitDescriptor(pid) else { return }
        let watch = loop.watch(fd, .readable) { [weak self] _ in
            guard let self, let current = self.process, current.fd == fd else { return }
            self.log(["event": "app-exited", "pid": .int(Int64(pid))])
            self.loop.unwatch(current.watch)
            close(current.fd)
            self.process = nil
            self.bridge.update()
        }
        process = (pid, fd, watch)
    }

    private func addWatches() {
        if dataWatch < 0 {
            dataWatch = inotify_add_watch(inotify, bridge.dataHome,
                                          UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM))
        }
        if kdeWatch < 0 {
            kdeWatch = inotify_add_watch(inotify, bridge.kdeFolder,
                                         UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM))
        }
        if dataWatch < 0, let retryTimer { loop.arm(retryTimer, at: Monotonic.now() + UInt64(Self.retry * 1e9)) }
    }

    private func scheduleUpdate() {
        if let updateTimer { loop.arm(updateTimer, at: Monotonic.now() + UInt64(Self.settle * 1e9)) }
    }

    /// Runs until a signal; the exit status.
    func run(_ app: Application) -> Int32 {
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else {
            log(["event": "error", "message": "inotify_init1 failed"])
            return 1
        }
        defer { close(inotify) }
        let update = loop.timer { [weak self] in self?.bridge.update() }
        updateTimer = update
        let retry = loop.timer { [weak self] in
            guard let self else { return }
            self.addWatches()
            self.scheduleUpdate()
        }
        retryTimer = retry
        addWatches()
        watchQueue(of: app)
        let inotifyWatch = loop.watch(inotify, .readable) { [weak self] _ in
            guard let self else { return }
            var changed = false
            for event in InotifyEvents.drain(self.inotify) {
                if event.watch == self.dataWatch {
                    if event.name == Self.xbelName { changed = true }
                    if event.name == "RecentDocuments", self.kdeWatch < 0 { self.addWatches(); changed = true }
                    if event.has(IN_IGNORED) || event.has(IN_DELETE_SELF) { self.dataWatch = -1; self.addWatches() }
                } else if event.watch == self.kdeWatch {
                    if event.name.hasSuffix(".desktop") { changed = true }
                    if event.has(IN_IGNORED) { self.kdeWatch = -1 }
                }
            }
            if changed { self.scheduleUpdate() }
        }
        let signalWatch = stopOnSignal()
        _ = try? app.dispatch()
        bridge.update()
        loop.run()
        loop.unwatch(inotifyWatch)
        loop.unwatch(signalWatch)
        for watch in watched { loop.unwatch(watch) }
        watchProcess(nil)
        loop.release(update)
        loop.release(retry)
        return ExitCode.ok
    }
}
