// SPDX-License-Identifier: MIT OR Apache-2.0

/// The `AgentLoopSource`s an event loop watches (a bus connection each:
/// notifications, the tray, the launcher): each under its own token, with
/// the descriptor and events it wants now, which change as a bus connects
/// or queues a message. Shared by the agent's loop (`AgentServer`) and the
/// wait before an account (`AccountWait`). Loop thread only.
final class LoopSources {
    private let loop: EventLoop
    private var entries: [EventLoop.Token: (source: any AgentLoopSource, fd: Int32, events: UInt32)] = [:]
    private let onError: (String) -> Void

    init(loop: EventLoop, onError: @escaping (String) -> Void) {
        self.loop = loop
        self.onError = onError
    }

    /// Watches `source` under `token` (one the caller keeps for it alone).
    func add(_ source: any AgentLoopSource, token: EventLoop.Token) {
        entries[token] = (source, -1, 0)
        refresh(token)
    }

    /// Processes the source registered under `token`; false when the token
    /// is not one of them.
    func process(_ token: EventLoop.Token) -> Bool {
        guard let entry = entries[token] else { return false }
        entry.source.process()
        refresh(token)
        return true
    }

    /// Processes those whose timeout is due (0), then watches what each
    /// wants now: what this turn did may have queued a bus message.
    func processDue() {
        for token in Array(entries.keys) {
            guard let entry = entries[token], entry.source.timeoutMilliseconds == 0 else { continue }
            entry.source.process()
            refresh(token)
        }
        for token in Array(entries.keys) { refresh(token) }
    }

    /// The earliest of their timeouts in milliseconds; -1 when none.
    var timeoutMilliseconds: Int32 {
        entries.values.map(\.source.timeoutMilliseconds).filter { $0 >= 0 }.min() ?? -1
    }

    /// The loop stops: each says its last words.
    func loopWillStop() {
        for entry in entries.values { entry.source.loopWillStop() }
    }

    /// Stops watching the source under `token` (it says no last words).
    func remove(_ token: EventLoop.Token) {
        guard let entry = entries.removeValue(forKey: token) else { return }
        if entry.fd >= 0 { loop.remove(entry.fd) }
    }

    /// Stops watching all of them.
    func removeAll() {
        for entry in entries.values where entry.fd >= 0 { loop.remove(entry.fd) }
        entries = [:]
    }

    private func refresh(_ token: EventLoop.Token) {
        guard let entry = entries[token] else { return }
        let fd = entry.source.fd
        let events = UInt32(UInt16(bitPattern: entry.source.pollEvents))
        guard fd != entry.fd || events != entry.events else { return }
        if entry.fd >= 0 { loop.remove(entry.fd) }
        if fd >= 0 {
            do { try loop.add(fd, token: token, events: events) } catch { onError(error.message) }
        }
        entries[token] = (entry.source, fd, events)
    }
}
