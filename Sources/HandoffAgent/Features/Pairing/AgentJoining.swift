// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The waiting agent joining another device's account (docs/agent.md
/// §10), once the person chose "Pair this device…" in its tray: one joiner
/// run (docs/PROTOCOL.md §9, comparing a code) on its own thread. Its
/// progress reaches the loop through `post`; the comparison is asked on
/// the loop (a notification) and answered through a `PairingAnswer`. One
/// run at a time; `cancel` ends it as a "no", `stop` also waits for it.
final class AgentJoining: @unchecked Sendable {
    // @unchecked: the mutable state is in `running`; the rest is fixed.
    enum Progress {
        /// Announcing itself; no device has answered yet.
        case looking
        /// A device of the account answered: ask whether `code` matches,
        /// and give the person's answer to `answer`.
        case comparing(ComparisonCode, answer: PairingAnswer)
        /// The run ended: the account is stored, or why not (`cancelled`:
        /// because `cancel` or `stop` asked).
        case ended(Result<PairingResult, HandoffError>, cancelled: Bool)
    }

    /// What a run needs: how beacons go out (the agent's network options),
    /// this device's name, where the account is stored.
    struct Setup {
        var config: PairingConfiguration
        var deviceName: String
        var store: AccountStore
    }

    private let setup: Setup
    private let post: @Sendable (@escaping @Sendable () -> Void) -> Void
    private let running = Awaitable(false)
    private let cancelled = Locked(false)
    private let cancelPipe: WakePipe

    /// `post` runs a job on the loop thread (the wait's `Reactor.post`).
    init(_ setup: Setup, post: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) throws(HandoffError) {
        cancelPipe = try WakePipe.make()
        self.setup = setup
        self.post = post
    }

    var isRunning: Bool { running.update { $0 } }

    /// Starts a run; false when one runs already or no thread could start.
    /// `progress` is called on the loop thread, `.ended` last.
    func start(_ progress: @escaping @Sendable (Progress) -> Void) -> Bool {
        guard running.update({ r in defer { r = true }; return !r }) else { return false }
        // A cancel left from an earlier run must not end this one.
        cancelled.withLock { $0 = false }
        cancelPipe.drain()
        guard startDetachedThread(named: "hoff-joining", { [self] in self.run(progress) }) else {
            running.update { $0 = false }
            return false
        }
        return true
    }

    /// Ends the run under way, if any, as a "no" (nothing is stored).
    func cancel() {
        cancelled.withLock { $0 = true }
        cancelPipe.signal()
    }

    /// Cancels and waits for the run's thread (bounded by its own timeouts).
    func stop() {
        cancel()
        running.wait(until: { !$0 }, seconds: 30) { _, _ in }
    }

    /// The name this device joins under (docs/agent.md §10): the tray has
    /// no text field to ask in, so it is the device's name as stored
    /// (`handoff device --name`, or `handoff pair`'s question, chose it)
    /// unless that is still the one made up at first use ("Ada's laptop",
    /// the host name) and the person has since named the machine
    /// (`PRETTY_HOSTNAME`, GNOME's "Device Name"): then that, saved, so
    /// the other devices show what the person calls it.
    /// `save` false: only what it would be (the menu says it beforehand).
    static func joiningName(store: AccountStore, fallback: String, save: Bool = true) -> String {
        guard var device = try? store.loadDevice() else { return fallback }
        if let pretty = DefaultDeviceName.pretty(), pretty != device.name, device.name == DefaultDeviceName.automatic() {
            guard save else { return pretty }
            device.name = pretty
            if (try? store.saveDevice(device)) != nil { return pretty }
        }
        return device.name
    }

    /// The name a run started now would join under.
    var name: String { Self.joiningName(store: setup.store, fallback: setup.deviceName, save: false) }

    // MARK: The run's thread

    private func run(_ progress: @escaping @Sendable (Progress) -> Void) {
        var config = setup.config
        config.cancelFD = cancelPipe.fd
        var events = PairingEvents { [post] code in
            guard let answer = PairingAnswer() else { return PairingPrompt(fd: -1) { false } }
            post { progress(.comparing(code, answer: answer)) }
            return PairingPrompt(fd: answer.fd) { answer.take() }
        }
        events.listening = { [post] _ in post { progress(.looking) } }
        let name = Self.joiningName(store: setup.store, fallback: setup.deviceName)
        let result = Result { () throws(HandoffError) in
            try PairingJoiner.run(config, deviceName: name, store: setup.store, events: events)
        }
        // Posted before `running` turns false, so a `stop` that returned
        // leaves no job behind to run later; the run's sockets are closed.
        let wasCancelled = cancelled.withLock { $0 }
        post { progress(.ended(result, cancelled: wasCancelled)) }
        running.update { $0 = false }
    }
}
