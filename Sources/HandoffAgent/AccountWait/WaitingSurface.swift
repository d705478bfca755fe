// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel

/// What the person meets while the agent waits for an account (docs/
/// agent.md §10): the notification that says so, the tray in its "not set
/// up" state, and the pairing its "Pair this device…" starts (joining
/// another device's account; the code asked in a notification and in the
/// menu, either answers). Sources of the wait's loop. Loop thread.
final class WaitingSurface: @unchecked Sendable {
    // @unchecked: used on the loop thread only; the joining thread reaches
    // it through the loop's jobs.
    private let log: AgentLogSink
    private let loop: Reactor
    private var notifications: WaitingNotifications?
    private var tray: AgentTray?
    private var content: WaitingTrayContent?
    private var joining: AgentJoining?
    /// The comparison's answer while it is asked.
    private var answer: PairingAnswer?
    /// A pairing started here has not ended yet (on the loop thread: its
    /// end is heard after the account it stored).
    private(set) var isJoining = false
    /// The pairing ended (paired or not).
    var onJoinEnded: (() -> Void)?

    /// The waiting tray's item instance (the running agent's tray, which
    /// follows, takes 1: its name is free whichever way the bus orders it).
    static let trayInstance = 2

    init(_ options: AccountWait.Surface, loop: Reactor, sources: LoopSources, log: @escaping AgentLogSink) {
        self.log = log
        self.loop = loop
        if options.notify {
            let notifications = WaitingNotifications(busAddress: options.busAddress, log: log)
            sources.add(notifications)
            self.notifications = notifications
        }
        if let join = options.join {
            do {
                joining = try AgentJoining(.init(config: join.config, deviceName: join.deviceName, store: join.store),
                                           post: { [loop] job in loop.post(job) })
            } catch {
                log(AgentLogEvent("error", "cannot offer pairing in the tray: \(error.message)"))
            }
        }
        if options.tray {
            let content = WaitingTrayContent(onPair: { [unowned self] in self.pair() },
                                             onConfirm: { [unowned self] in self.confirm() },
                                             onCancel: { [unowned self] in self.joining?.cancel() },
                                             deviceName: { [unowned self] in self.joining?.name })
            if let tray = AgentTray.start(content: content, address: options.busAddress, instance: Self.trayInstance, log: log) {
                sources.add(tray)
                self.tray = tray
                self.content = content
            }
        }
    }

    /// "Pair this device…": one joiner run, its progress in the tray, the
    /// code in a notification.
    private func pair() {
        guard let joining else {
            log(AgentLogEvent("pair-help", "the person asked to pair this device: run `handoff pair` here"))
            return
        }
        guard !isJoining else { return }
        guard joining.start({ [self] progress in self.heard(progress) }) else {
            log(AgentLogEvent("error", "cannot start pairing"))
            return
        }
        isJoining = true
        content?.progress = .looking
        log(AgentLogEvent("joining", "the person chose to pair this device: looking for a device of theirs"))
    }

    /// The menu's "Pair": the codes match.
    private func confirm() {
        guard let answer else { return }
        log(AgentLogEvent("joining-answer", "the person confirmed the code in the tray", ["match": .bool(true)]))
        answer.give(true)
        notifications?.endJoin()
    }

    private func heard(_ progress: AgentJoining.Progress) {
        switch progress {
        case .looking:
            break
        case .comparing(let code, let answer):
            content?.progress = .comparing(code.description)
            log(AgentLogEvent("joining-prompt", "a device answered: asking the person to compare the code"))
            self.answer = answer
            notifications?.askJoin(code, answer: answer)
            // Neither a notification nor a tray to answer in: a "no".
            if notifications == nil && tray == nil { answer.give(false) }
        case .ended(let result, let cancelled):
            isJoining = false
            let compared = answer != nil
            answer = nil
            content?.progress = nil
            notifications?.showJoinEnded(result, cancelled: cancelled, compared: compared, name: joining?.name)
            switch result {
            case .success(let paired):
                log(AgentLogEvent("paired", "paired with \(paired.peerName): this device joined account \(paired.accountID)",
                                  ["peer": .string(paired.peerName), "account": .string(paired.accountID), "role": .string("joiner")]))
            case .failure(let error):
                log(AgentLogEvent("pairing-ended", "pairing ended: \(error.message)",
                                  ["code": .int(Int64(error.code.rawValue)), "cancelled": .bool(cancelled)]))
            }
            onJoinEnded?()
        }
    }

    /// The wait ends: a pairing under way is cancelled and waited for.
    func stop() {
        joining?.stop()
        notifications?.endJoin()
    }
}
