// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffDBus
import HandoffModel
import HandoffRuntime

/// What the person sees (docs/agent.md §6): a notification for each
/// activity another device offers that something here can continue,
/// closed when the activity goes; its "Continue" does what CHOOSE does.
/// What is continuable is decided once, by `ContinuableOffers` (the tray
/// hears the same); this listens to it and is a source of the server's
/// loop (the session bus). Everything runs on the loop thread. Without a
/// session bus or a notification server it says so once in the log and
/// the agent carries on.
final class AgentNotifications: AgentLoopSource {
    private unowned let server: AgentServer
    private var bus: SessionBus?
    private var notifier: Notifier<ActivityID>?
    private var listener: ContinuableOffers.Listener?
    /// Offers shown; notices ("no app") shown; activities whose notice was
    /// shown once (not again until the activity goes and comes back).
    private var shown: Set<ActivityID> = []
    private var notices: Set<ActivityID> = []
    private var noticed: Set<ActivityID> = []
    /// The pairing prompt's answer while it is shown (docs/agent.md §9);
    /// called once, then nil.
    private var pairingAnswer: ((Bool) -> Void)?
    static let pairingPromptKey = ActivityID(uuidString: "0A1B0000-0000-4000-8000-000000000001")!
    static let pairedKey = ActivityID(uuidString: "0A1B0000-0000-4000-8000-000000000002")!
    static let pairHelpKey = ActivityID(uuidString: "0A1B0000-0000-4000-8000-000000000003")!
    static let pairAction = "pair", notNowAction = "not-now"

    /// Connects to the session bus at `address` (nil: the one the
    /// environment names) and starts watching. Loop thread.
    static func start(server: AgentServer, address: String?) -> AgentNotifications? {
        let notifications = AgentNotifications(server: server)
        do {
            let bus = try SessionBus(address: address)
            notifications.bus = bus
            notifications.notifier = try Notifier<ActivityID>(bus: bus) { [unowned notifications] event in
                notifications.handle(event)
            }
        } catch {
            server.log("notifications", "no notifications: \(error.message) (the agent works without them)",
                       ["available": .bool(false)])
            return nil
        }
        notifications.listener = server.offers.listen { [unowned notifications] in notifications.apply($0) }
        server.offers.start()
        return notifications
    }

    private init(server: AgentServer) {
        self.server = server
    }

    // MARK: Loop thread

    private func apply(_ change: ContinuableOffers.Change) {
        guard let notifier else { return }
        switch change {
        case .shown(let offer, _):
            notices.remove(offer.activityID)
            notifier.show(.offer(offer.remote, offer.target), for: offer.activityID)
            shown.insert(offer.activityID)
        case .gone(let id):
            if shown.remove(id) != nil { notifier.close(id) }
        case .notContinuable(let remote):
            // Said once per activity, never again on its keep-alives.
            let id = remote.activityID
            guard noticed.insert(id).inserted else { return }
            notifier.show(.noApp(remote, installable: server.routing.installable(remote),
                                 appName: server.routing.appLabel(bundle: remote.bundleIdentifier)?.name), for: id)
            notices.insert(id)
            let why = server.routing.undeclaredReason(remote).map { " (\($0))" } ?? ""
            server.log("no-app", "no app here continues \(remote.activityType) of team \(remote.teamIdentifier) from \(remote.deviceName)\(why); the person is told",
                       ["activity": .string(id.uuidString), "type": .string(remote.activityType),
                        "bundle": .string(remote.bundleIdentifier)])
        case .withdrawn(let id):
            noticed.remove(id)
            if notices.remove(id) != nil { notifier.close(id) }
        }
    }

    // MARK: Pairing (docs/agent.md §9), loop thread

    /// Asks "Pair a new device?" with the code (and the name the joiner
    /// calls itself, unauthenticated: said so, beside the code); `answer`
    /// hears true for "Pair", false for "Not now", a closed notification,
    /// or no server.
    func askPairing(_ code: ComparisonCode, callingItself name: String? = nil, answer: @escaping (Bool) -> Void) {
        endPairing()
        guard let notifier else { return answer(false) }
        pairingAnswer = answer
        let body = name.map { tr("A device calling itself “{device}” asks to join. Compare: {code}", ["device": $0, "code": "\(code)"]) }
            ?? tr("Compare: {code}", ["code": "\(code)"])
        notifier.show(NotificationContent(summary: tr("Pair a new device?"), body: body,
                                          actions: [(Self.pairAction, tr("Pair")), (Self.notNowAction, tr("Not now"))],
                                          urgency: 2), for: Self.pairingPromptKey)
    }

    /// Withdraws the prompt (the pairing ended); its answer is not called.
    func endPairing() {
        pairingAnswer = nil
        notifier?.close(Self.pairingPromptKey)
    }

    func showPaired(_ name: String) {
        notifier?.show(NotificationContent(summary: tr("Paired with {device}", ["device": name]), body: tr("It joined this device's account."),
                                           actions: [], urgency: 1), for: Self.pairedKey)
    }

    /// The tray's "Pair a new device…": what to do on the new device.
    func showPairingHelp() {
        notifier?.show(NotificationContent(summary: tr("Pair a new device"),
                                           body: tr("On the new device, run: handoff pair. This device then asks you to compare a code."),
                                           actions: [], urgency: 1), for: Self.pairHelpKey)
    }

    /// The agent waits for an account (docs/agent.md §10): shown once
    /// while it waits, by `WaitingNotifications`.
    static func notSetUpContent() -> NotificationContent {
        NotificationContent(summary: tr("Handoff is not set up"),
                            body: tr("Pair this device with one of yours: choose “Pair this device…” in Handoff's icon, or run `handoff pair` on both."),
                            actions: [], urgency: 1)
    }

    private func answerPairing(_ yes: Bool) {
        guard let answer = pairingAnswer else { return }
        pairingAnswer = nil
        notifier?.close(Self.pairingPromptKey)
        answer(yes)
    }

    private func handle(_ event: Notifier<ActivityID>.Event) {
        switch event {
        case .actionInvoked(let id, let action, _) where id == Self.pairingPromptKey:
            // A click on the body ("default") is no answer: only the buttons are.
            if action == Self.pairAction || action == Self.notNowAction { answerPairing(action == Self.pairAction) }
        case .actionInvoked(let id, _, _) where id == Self.pairedKey || id == Self.pairHelpKey:
            break
        case .closed(let id, _) where id == Self.pairingPromptKey:
            answerPairing(false)
        case .actionInvoked(let id, let action, let token) where notices.contains(id):
            // The "no app" notice: its "Install"; a click on its body does nothing.
            guard action == NotificationContent.installAction else { break }
            notices.remove(id)
            notifier?.close(id)
            if case .failure(let error) = server.routing.openInstall(for: id, activationToken: token) {
                server.log("choose-failed", "cannot \(action) for \(id.uuidString): \(error.message)",
                           ["activity": .string(id.uuidString), "code": .int(Int64(error.code.rawValue))])
            }
        case .actionInvoked(let id, let action, let token)
            where action == Notifier<ActivityID>.continueAction || action == NotificationContent.defaultAction:
            server.log("chosen", "the person chose \(id.uuidString) in a notification",
                       ["activity": .string(id.uuidString), "token": .bool(token != nil)])
            shown.remove(id)
            notifier?.close(id)
            if case .failure(let error) = server.routing.choose(id, activationToken: token) {
                server.log("choose-failed", "cannot continue \(id.uuidString): \(error.message)",
                           ["activity": .string(id.uuidString), "code": .int(Int64(error.code.rawValue))])
            }
        case .actionInvoked:
            break
        case .closed(let id, .expired) where shown.contains(id):
            // An offer a server let expire stays wanted: the notifier shows
            // it again to the next server (and closes it when it goes).
            break
        case .closed(let id, _):
            shown.remove(id)
            notices.remove(id)
        case .unavailable(let error):
            answerPairing(false)
            server.log("notifications", "no notification server: \(error.message) (the agent works without it)",
                       ["available": .bool(false)])
        case .available:
            server.log("notifications", "notification server available", ["available": .bool(true)])
        case .failed(let error):
            server.log("notifications", "notification call failed: \(error.message)")
        }
    }

    // MARK: AgentLoopSource

    var fd: Int32 { bus?.fd ?? -1 }
    var pollEvents: Int16 { bus?.events ?? 0 }
    var timeoutMilliseconds: Int32 { bus?.timeoutMilliseconds ?? -1 }

    func process() {
        guard let bus, !bus.process() else { return }
        server.log("notifications", "the session bus went away: no more notifications", ["available": .bool(false)])
        stopWatching()
    }

    /// Closes what it showed and lets go of the bus and the hub.
    func loopWillStop() {
        answerPairing(false)
        notifier?.close(Self.pairingPromptKey)
        for id in shown.union(notices) { notifier?.close(id) }
        shown.removeAll()
        notices.removeAll()
        stopWatching()
    }

    private func stopWatching() {
        if let listener { server.offers.unlisten(listener) }
        listener = nil
        notifier = nil
        bus?.close()
        bus = nil
    }
}
