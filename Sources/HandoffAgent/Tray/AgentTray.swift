// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The lasting indicator (docs/agent.md §6 "The tray"): a
/// StatusNotifierItem with a dbusmenu menu on its own session-bus
/// connection, listening to `ContinuableOffers` like the notifications.
/// It owns org.kde.StatusNotifierItem-<pid>-1, registers it with
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

    private unowned let server: AgentServer
    private let actions: TrayActions
    private var bus: SessionBus?
    private var item: StatusNotifierItemObject?
    private var menu: DBusMenuObject?
    private var listener: ContinuableOffers.Listener?
    private(set) var state = State.starting
    /// "no tray" is said once until a registration works in between.
    private var saidNoTray = false
    private var offerIDs: [ActivityID: Int32] = [:]
    private var nextOfferID = TrayMenu.firstOfferID
    let busName: String

    /// Starts on the session bus at `address` (nil: the environment's).
    /// Loop thread. Nil (logged) without a bus.
    static func start(server: AgentServer, address: String?, actions: TrayActions,
                      iconThemePath: String = IconThemePath.installed()) -> AgentTray? {
        let tray = AgentTray(server: server, actions: actions)
        do {
            try tray.connect(address: address, iconThemePath: iconThemePath)
        } catch {
            server.log("tray", "no tray: \(error.message) (the agent works without it)", ["state": .string("off")])
            tray.stop()
            return nil
        }
        return tray
    }

    private init(server: AgentServer, actions: TrayActions) {
        self.server = server
        self.actions = actions
        busName = "org.kde.StatusNotifierItem-\(getpid())-1"
    }

    private func connect(address: String?, iconThemePath: String) throws(DBusError) {
        let bus = try SessionBus(address: address)
        self.bus = bus
        let menu = try DBusMenuObject(bus: bus, menu: buildMenu())
        menu.onClicked = { [unowned self] item in self.clicked(item) }
        menu.onAboutToShow = { [unowned self] in self.refresh() }
        self.menu = menu
        let item = try StatusNotifierItemObject(bus: bus, look: look, iconThemePath: iconThemePath,
                                                menuPath: DBusMenuObject.path)
        item.onActivate = { [unowned self] in self.continueNewest() }
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
        listener = server.offers.listen { [unowned self] _ in self.refresh() }
        server.offers.start()
    }

    // MARK: What it shows

    private var look: StatusNotifierItemObject.Look {
        let count = server.offers.offers.count
        if actions.isPaused {
            return .init(status: "Passive", iconName: "handoff-paused", toolTipTitle: tr("Handoff is paused"),
                         toolTipText: "")
        }
        if count == 0 {
            return .init(status: "Passive", iconName: "handoff", toolTipTitle: "Handoff",
                         toolTipText: tr("Nothing to continue"))
        }
        let newest = server.offers.newestFirst[0].remote
        let what = newest.title.flatMap { $0.isEmpty ? nil : $0 } ?? newest.activityType
        return .init(status: "Active", iconName: "handoff-available",
                     toolTipTitle: trn("{count} thing to continue", "{count} things to continue", count, ["count": "\(count)"]),
                     toolTipText: tr("{title} from {device}", ["title": what, "device": newest.deviceName]))
    }

    private func buildMenu() -> TrayMenu {
        let offers = server.offers.newestFirst
        let live = Set(offers.map(\.activityID))
        offerIDs = offerIDs.filter { live.contains($0.key) }
        return TrayMenu(offers: offers, offerID: { [unowned self] id in self.id(for: id) },
                        devices: server.trayDevices(), paused: actions.isPaused)
    }

    private func id(for activity: ActivityID) -> Int32 {
        if let id = offerIDs[activity] { return id }
        let id = nextOfferID
        nextOfferID = nextOfferID == Int32.max ? TrayMenu.firstOfferID : nextOfferID + 1
        offerIDs[activity] = id
        return id
    }

    /// Rebuilds the menu and the look; true when the menu changed. Also
    /// what to call when the pause state changed elsewhere
    /// (`AgentServer.trayStateChanged`).
    @discardableResult
    func refresh() -> Bool {
        guard let menu, let item else { return false }
        let before = menu.revision, beforeMenu = menu.menu
        menu.update(buildMenu())
        let oldStatus = item.look
        item.update(look)
        if oldStatus.status != item.look.status || oldStatus.iconName != item.look.iconName {
            logState()
        }
        return menu.revision != before || menu.menu != beforeMenu
    }

    private func logState() {
        let offers = server.offers.offers.count
        let word = switch state {
        case .starting: "starting"
        case .registered: "registered"
        case .noWatcher: "no watcher"
        }
        server.log("tray", "tray: \(word), \(offers) offer\(offers == 1 ? "" : "s")\(actions.isPaused ? ", paused" : "")",
                   ["state": .string(word), "offers": .int(Int64(offers)), "paused": .bool(actions.isPaused)])
    }

    // MARK: What the person does

    private func clicked(_ item: TrayMenu.Item) {
        server.count { $0.trayClicks += 1 }
        switch item.action {
        case .continueOffer(let id):
            continueOffer(id, from: "the tray's menu")
        case .togglePause:
            actions.setPaused(!actions.isPaused)
            refresh()
        case .pairNewDevice:
            actions.pairNewDevice()
        case .none:
            break
        }
    }

    /// Activate (hosts that do not show the menu on a click): the newest.
    private func continueNewest() {
        guard !actions.isPaused, let newest = server.offers.newestFirst.first else { return }
        continueOffer(newest.activityID, from: "the tray icon")
    }

    /// Exactly what the notification's Continue does.
    private func continueOffer(_ id: ActivityID, from surface: String) {
        server.log("chosen", "the person chose \(id.uuidString) in \(surface)",
                   ["activity": .string(id.uuidString), "token": .bool(false), "surface": .string("tray")])
        if case .failure(let error) = server.choose(id, activationToken: nil) {
            server.log("choose-failed", "cannot continue \(id.uuidString): \(error.message)",
                       ["activity": .string(id.uuidString), "code": .int(Int64(error.code.rawValue))])
        }
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
                    self.server.count { $0.trayRegistrations += 1 }
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
        server.log("tray", "no tray: \(why) (the agent works without it; a tray that starts later shows it)",
                   ["state": .string("no watcher")])
    }

    // MARK: AgentLoopSource

    var fd: Int32 { bus?.fd ?? -1 }
    var pollEvents: Int16 { bus?.events ?? 0 }
    var timeoutMilliseconds: Int32 { bus?.timeoutMilliseconds ?? -1 }

    func process() {
        guard let bus, !bus.process() else { return }
        server.log("tray", "no tray: the session bus went away", ["state": .string("off")])
        stop()
    }

    func loopWillStop() { stop() }

    private func stop() {
        if let listener { server.offers.unlisten(listener) }
        listener = nil
        menu?.unexport()
        item?.unexport()
        menu = nil
        item = nil
        bus?.close()
        bus = nil
    }
}
