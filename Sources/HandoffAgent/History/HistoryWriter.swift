// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel

/// The history's one writer (docs/history.md "Writes happen off the app's
/// path"): a thread of its own takes records and deletions in the order
/// they came, writing consecutive records in one transaction. At most
/// `maxWaitingRecords` records wait; beyond that the oldest waiting one is
/// dropped (and counted). Deletions are never dropped: each completes
/// once, on the writer's thread.
final class HistoryWriter: @unchecked Sendable {
    // @unchecked: `store` is touched on the writer's thread only; the rest
    // is under `jobs`' lock.
    static let maxWaitingRecords = 256

    enum Job {
        /// A record, made on the writer's thread (decoding a payload is
        /// work for it, not for the agent's loop); nil writes nothing.
        case write(@Sendable () -> HistoryRecord?)
        case delete(HistoryDeletion, @Sendable (Result<Int, HandoffError>) -> Void)
        /// Runs on the writer's thread with its store (tests, pruning).
        case run(@Sendable (HistoryStore) -> Void)
    }

    private struct Jobs {
        var waiting: [Job] = []
        var records = 0
        var dropped = 0
        var draining = false
    }

    private let jobs = Locked(Jobs())
    private let pool = WorkerPool(threads: 1, queueLimit: 4, name: "hoff-history")
    private let store: HistoryStore
    /// What is kept, asked before each prune; the clock in ms.
    private let retention: @Sendable () -> HistoryRetention
    private let now: @Sendable () -> Int64
    private let onError: @Sendable (HandoffError) -> Void
    /// After a batch that wrote or deleted something.
    private let changed: @Sendable () -> Void
    private var lastPrune: Double = -.infinity
    /// Written since the last prune.
    private var sincePrune = 0

    init(store: HistoryStore, retention: @escaping @Sendable () -> HistoryRetention,
         now: @escaping @Sendable () -> Int64 = { Int64(wallMilliseconds()) },
         changed: @escaping @Sendable () -> Void = {},
         onError: @escaping @Sendable (HandoffError) -> Void) {
        self.changed = changed
        self.store = store
        self.retention = retention
        self.now = now
        self.onError = onError
    }

    /// Records dropped because too many waited.
    var dropped: Int { jobs.withLock { $0.dropped } }

    func submit(_ job: Job) {
        let start: Bool = jobs.withLock { j in
            if case .write = job {
                if j.records >= Self.maxWaitingRecords, let i = j.waiting.firstIndex(where: { if case .write = $0 { true } else { false } }) {
                    j.waiting.remove(at: i)
                    j.records -= 1
                    j.dropped += 1
                }
                j.records += 1
            }
            j.waiting.append(job)
            guard !j.draining else { return false }
            j.draining = true
            return true
        }
        if start, !pool.submit({ [self] in drain() }) {
            // No thread: fail what waits rather than hold it for ever.
            let failed = jobs.withLock { j -> [Job] in
                defer { j.waiting.removeAll(); j.records = 0; j.draining = false }
                return j.waiting
            }
            for case .delete(_, let done) in failed { done(.failure(HandoffError(.io, "the history's writer could not start"))) }
        }
    }

    /// Everything submitted so far is written (or failed) when this returns.
    func flush(seconds: Double = 10) {
        let done = Awaitable(false)
        submit(.run { _ in done.update { $0 = true } })
        done.wait(until: { $0 }, seconds: seconds) { _, _ in }
    }

    func stop() {
        flush(seconds: 5)
        pool.stop(waiting: 5)
    }

    private func drain() {
        while true {
            let batch: [Job]? = jobs.withLock { j in
                guard !j.waiting.isEmpty else { j.draining = false; return nil }
                defer { j.waiting.removeAll(); j.records = 0 }
                return j.waiting
            }
            guard let batch else { return }
            var records: [HistoryRecord] = []
            var touched = false
            func writeRecords() {
                guard !records.isEmpty else { return }
                do { try store.write(records) } catch { onError(error) }
                touched = true
                sincePrune += records.count
                records.removeAll()
            }
            for job in batch {
                switch job {
                case .write(let make):
                    if let record = make() { records.append(record) }
                case .delete(let deletion, let done):
                    writeRecords()
                    do { done(.success(try store.delete(deletion))) } catch { done(.failure(error)) }
                    touched = true
                case .run(let body):
                    writeRecords()
                    body(store)
                }
            }
            writeRecords()
            pruneIfDue()
            if touched { changed() }
        }
    }

    /// After 64 writes, or a minute after the last prune.
    private func pruneIfDue() {
        let t = monotonicSeconds()
        guard sincePrune > 0, sincePrune >= 64 || t - lastPrune >= 60 else { return }
        do { try store.prune(retention(), now: now()) } catch { onError(error) }
        lastPrune = t
        sincePrune = 0
    }
}
