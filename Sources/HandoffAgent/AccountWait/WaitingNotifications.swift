// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffDBus
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The waiting agent's notifications (docs/agent.md §10), on their own
/// session-bus connection: "Handoff is not set up" once; while it joins
/// another device's account, the comparison ("Pair this device?" with
/// Pair / Cancel); then how that ended. Without a bus or a server it logs
/// that once and the wait goes on without them (the tray's menu still
/// answers a comparison). Loop thread (an `AgentLoopSource` of the wait's loop).
final class WaitingNotifications: AgentLoopSource {
    private enum Key: Hashable {
        case notSetUp, compare, outcome
    }
    static let pairAction = "pair", cancelAction = "cancel"

    private let log: AgentLogSink
    private var bus: SessionBus?
    private var notifier: Notifier<Key>?
    /// The comparison's answer while it is asked; given once, then nil.
    private var answer: PairingAnswer?

    init(busAddress: String?, log: @escaping AgentLogSink) {
        self.log = log
        do {
            let bus = try SessionBus(address: busAddress)
            self.bus = bus
            let notifier = try Notifier<Key>(bus: bus) { [unowned self] event in self.handle(event) }
            notifier.show(AgentNotifications.notSetUpContent(), for: .notSetUp)
            self.notifier = notifier
        } catch {
            log(AgentLogEvent("notifications", "no notifications: \(error.message) (the agent works without them)",
                              ["available": .bool(false)]))
            bus = nil
        }
    }

    /// Asks whether the other device shows `code`; `answer` hears Pair
    /// (true), Cancel or a closed notification (false); nothing without a
    /// server (the tray may answer).
    func askJoin(_ code: ComparisonCode, answer: PairingAnswer) {
        endJoin()
        guard let notifier else { return }
        self.answer = answer
        notifier.show(NotificationContent(summary: tr("Pair this device?"),
                                          body: tr("Does your other device show {code}? If it does, choose Pair on both.",
                                                   ["code": "\(code)"]),
                                          actions: [(Self.pairAction, tr("Pair")), (Self.cancelAction, tr("Cancel"))],
                                          urgency: 2), for: .compare)
    }

    /// The comparison is over (answered elsewhere, or the pairing ended):
    /// the question goes, unanswered here.
    func endJoin() {
        answer = nil
        notifier?.close(.compare)
    }

    /// How a pairing the person started ended; a cancel says nothing.
    /// `compared`: a device had answered (a timeout is then the answer's).
    /// `name`: what this device is called now (said with how to change it).
    func showJoinEnded(_ result: Result<PairingResult, HandoffError>, cancelled: Bool, compared: Bool, name: String? = nil) {
        endJoin()
        if cancelled, case .failure = result { return }
        let content: NotificationContent
        switch result {
        case .success(let paired):
            let body = name.map {
                tr("This device joined your account as “{device}” (to rename it: handoff device --name NAME).", ["device": $0])
            } ?? tr("This device joined your account.")
            content = NotificationContent(summary: tr("Paired with {device}", ["device": paired.peerName]),
                                          body: body, actions: [], urgency: 1)
        case .failure(let error):
            content = NotificationContent(summary: tr("This device was not paired"),
                                          body: Self.whyNotPaired(error, compared: compared), actions: [], urgency: 1)
        }
        notifier?.show(content, for: .outcome)
    }

    /// Why a pairing ended, as honestly as this side knows it
    /// (`PairingEnd`): the other side's "no" and its timeout are one
    /// message on the wire (REJECT), so neither is claimed.
    static func whyNotPaired(_ error: HandoffError, compared: Bool) -> String {
        switch (PairingEnd(error), compared) {
        case (.timedOut, false):
            tr("No device of yours answered. On a device that has Handoff set up, its agent answers by itself; try again on the same network.")
        case (.timedOut, true):
            tr("The code was not confirmed in time on both devices: nothing was exchanged.")
        case (.refusedHere, _):
            tr("You said the codes differ: nothing was exchanged. If they did match, pair again.")
        case (.endedThere, _):
            tr("Your other device ended the pairing: the code was not confirmed there (declined, or not answered in time). Nothing was exchanged.")
        case (.codeMismatch, _):
            tr("The other device does not hold this code: nothing was exchanged.")
        case (.other, _):
            tr("The connection to the other device failed: nothing was exchanged. Try again.")
        }
    }

    private func handle(_ event: Notifier<Key>.Event) {
        switch event {
        case .actionInvoked(.compare, let action, _):
            // A click on the body ("default") is no answer: only the buttons are.
            guard action == Self.pairAction || action == Self.cancelAction, let answer else { return }
            self.answer = nil
            notifier?.close(.compare)
            answer.give(action == Self.pairAction)
        case .closed(.compare, _):
            answer?.give(false)
            answer = nil
            notifier?.close(.compare)
        case .unavailable(let error):
            endJoin()
            log(AgentLogEvent("notifications", "no notification server: \(error.message) (the agent works without it)",
                              ["available": .bool(false)]))
        default:
            break
        }
    }

    // MARK: AgentLoopSource

    var fd: Int32 { bus?.fd ?? -1 }
    var pollEvents: Int16 { bus?.events ?? 0 }
    var timeoutMilliseconds: Int32 { bus?.timeoutMilliseconds ?? -1 }

    func process() {
        guard let bus, !bus.process() else { return }
        loopWillStop()
    }

    /// The wait is over: "not set up" goes (the engine's notifications
    /// take over; an outcome shown stays). The bus stays until the calls
    /// queued are answered (at most a second): a server may ignore a call
    /// whose sender has already left.
    func loopWillStop() {
        endJoin()
        notifier?.close(.notSetUp)
        notifier = nil
        if let bus {
            let end = monotonicSeconds() + 1
            while bus.pendingCallCount > 0, bus.fd >= 0, monotonicSeconds() < end {
                let busTimeout = bus.timeoutMilliseconds
                let until = busTimeout >= 0 ? min(end, monotonicSeconds() + Double(busTimeout) / 1000) : end
                _ = wait(bus.fd, for: bus.events, until: Deadline(at: until))
                guard bus.process() else { break }
            }
            bus.close()
        }
        bus = nil
    }
}
