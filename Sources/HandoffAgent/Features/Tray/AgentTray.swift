// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffDBus
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The lasting indicator (docs/agent.md §6 "The tray"): a
/// StatusNotifierItem with a dbusmenu menu on its own session-bus
/// connection, showing a `TrayContent` (the running agent's offers, or the
/// waiting agent's "not set up", §10). It owns
/// org.kde.StatusNotifierItem-<pid>-<instance>, registers it with
/// org.kde.StatusNotifierWatcher, and again whenever a watcher appears
/// (a panel restarting). Without a watcher it logs "no tray: …" once and
/// waits for one; the agent works the same.
///
/// Threads: the loop thread only (an `AgentLoopSource`).
final class AgentTray: AgentLoopSource {
    static let watcherName = "org.kde.StatusNotifierWatcher"
    static let watcherPath = "/StatusNotifierWatcher"
    static let callTimeout = 10.0

    enum State: Equatable {
        case starting
        /// Registered with the watcher that owns its name now.
        case registered
        /// No watcher answers; waits for one to appear.
        case noWatcher
    }

    private let content: TrayContent
    private let log: AgentLogSink
    private var bus: SessionBus?
    private var item: StatusNotifierItemObject?
    private var menu: DBusMenuObject?
    private(set) var state = State.starting
    /// "no tray" is said once until a registration works in between.
    private var saidNoTray = false
    /// The host's `ProvideXdgActivationToken`, for the Activate or menu
    /// click it precedes (docs/agent.md §15 "Tokens end to end").
    private var activationToken = ActivationToken.Held()
    /// When the menu is looked at again (monotonic seconds; infinity:
    /// only when something says it changed).
    private var nextLook = 0.0
    let busName: String

    /// Starts on the session bus at `address` (nil: the environment's).
    /// `instance` tells this process's items apart (the waiting agent's
    /// and the running one's, which follows it). Loop thread. Nil (logged)
    /// without a bus.
    static func start(content: TrayContent, address: String?, instance: Int = 1, log: @escaping AgentLogSink,
                      iconThemePath: String = IconThemePath.installed()) -> AgentTray? {
        let tray = AgentTray(content: content, instance: instance, log: log)
        do {
            try tray.connect(address: address, iconThemePath: iconThemePath)
        } catch {
            log(AgentLogEvent("tray", "no tray: \(error.message) (the agent works without it)", ["state": .string("off")]))
            tray.stop()
            return nil
        }
        return tray
    }

    private init(content: TrayContent, instance: Int, log: @escaping AgentLogSink) {
        self.content = content
        self.log = log
        busName = "org.kde.StatusNotifierItem-\(getpid())-\(instance)"
    }

    private func connect(address: String?, iconThemePath: String) throws(DBusError) {
        let bus = try SessionBus(address: address)
        self.bus = bus
        let menu = try DBusMenuObject(bus: bus, menu: content.menu())
        menu.onClicked = { [unowned self] item, sender in
            self.content.clicked(item, activationToken: self.activationToken.take(from: sender))
        }
        menu.onAboutToShow = { [unowned self] in self.refresh() }
        self.menu = menu
        let item = try StatusNotifierItemObject(bus: bus, look: content.look, iconThemePath: iconThemePath,
                                                menuPath: DBusMenuObject.path)
        item.onActivate = { [unowned self] sender in
            self.content.activated(activationToken: self.activationToken.take(from: sender))
        }
        // A token before SecondaryActivate was for that event: it does
        // nothing, and the token is not left for a later one.
        item.onSecondaryActivate = { [unowned self] sender in _ = self.activationToken.take(from: sender) }
        item.onActivationToken = { [unowned self] token, sender in self.activationToken.keep(token, from: sender) }
        self.item = item
        try bus.subscribe(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                          member: "NameOwnerChanged", arg0: Self.watcherName) { [weak self] m in
            guard (try? m.string()) == Self.watcherName, (try? m.string()) != nil, let new = try? m.string() else { return }
            // A panel quitting is said (once); one starting gets the item.
            if new.isEmpty { self?.noTray("the StatusNotifierWatcher went away") } else { self?.register() }
        }
        try bus.requestName(busName) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success: self.register()
            case .failure(let error): self.noTray("cannot own \(self.busName): \(error.message)")
            }
        }
        content.changed = { [unowned self] in self.refresh() }
    }

    /// Rebuilds the menu and the look; true when the menu changed. Also
    /// what to call when what the content shows changed elsewhere
    /// (`AgentServer.trayStateChanged`).
    @discardableResult
    func refresh() -> Bool {
        nextLook = content.lookInterval.map { monotonicSeconds() + $0 } ?? .infinity
        guard let menu, let item else { return false }
        let before = menu.revision, beforeMenu = menu.menu
        menu.update(content.menu())
        let oldStatus = item.look
        item.update(content.look)
        if oldStatus.status != item.look.status || oldStatus.iconName != item.look.iconName {
            logState()
        }
        return menu.revision != before || menu.menu != beforeMenu
    }

    private func logState() {
        let word = switch state {
        case .starting: "starting"
        case .registered: "registered"
        case .noWatcher: "no watcher"
        }
        let summary = content.stateSummary
        var event = AgentLogEvent("tray", "tray: \(word), \(summary.text)", ["state": .string(word)])
        event.fields += summary.fields
        log(event)
    }

    // MARK: The watcher

    private func register() {
        guard let bus else { return }
        do {
            try bus.call(destination: Self.watcherName, path: Self.watcherPath, interface: Self.watcherName,
                         member: "RegisterStatusNotifierItem", timeout: Self.callTimeout, autoStart: false,
                         build: { [busName] (w) throws(DBusError) in try w.string(busName) }) { [weak self] result in
                guard let self else { return }
                switch result {
                case .success:
                    self.state = .registered
                    self.saidNoTray = false
                    self.content.registered()
                    self.logState()
                case .failure(let error):
                    let why = error.kind == .noService ? "no StatusNotifierWatcher on the session bus" : error.message
                    self.noTray(why)
                }
            }
        } catch {
            noTray(error.message)
        }
    }

    private func noTray(_ why: String) {
        state = .noWatcher
        guard !saidNoTray else { return }
        saidNoTray = true
        log(AgentLogEvent("tray", "no tray: \(why) (the agent works without it; a tray that starts later shows it)",
                          ["state": .string("no watcher")]))
    }

    // MARK: AgentLoopSource

    var fd: Int32 { bus?.fd ?? -1 }
    var pollEvents: Int16 { bus?.events ?? 0 }
    var timeoutMilliseconds: Int32 {
        guard let bus else { return -1 }
        let busTimeout = bus.timeoutMilliseconds
        guard nextLook.isFinite else { return busTimeout }
        let look = Int32(min(Double(Int32.max), max(0, (nextLook - monotonicSeconds()) * 1000).rounded(.up)))
        return busTimeout >= 0 ? min(busTimeout, look) : look
    }

    func process() {
        if monotonicSeconds() >= nextLook { refresh() }
        guard let bus, !bus.process() else { return }
        log(AgentLogEvent("tray", "no tray: the session bus went away", ["state": .string("off")]))
        stop()
    }

    func loopWillStop() { stop() }

    private func stop() {
        content.stop()
        content.changed = nil
        menu?.unexport()
        item?.unexport()
        menu = nil
        item = nil
        bus?.close()
        bus = nil
    }
}
