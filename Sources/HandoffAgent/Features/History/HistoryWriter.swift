// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel

/// The history's one writer (docs/history.md "Writes happen off the app's
/// path"): a thread of its own takes records and deletions in the order
/// they came, writing consecutive records in one transaction.
///
/// Nothing is lost without being counted: a record for an activity that
/// already waits replaces it (the newest state is what the entry would
/// hold: `coalesced`); beyond `maxWaitingRecords` records or
/// `maxWaitingBytes` of payloads the oldest waiting one is dropped
/// (`dropped`); a batch the database refuses is `failed`. The counts are
/// in the agent's STATUS and `handoff doctor`; a failure is logged once
/// per change of state. Deletions are never dropped: each completes
/// once, on the writer's thread.
final class HistoryWriter: @unchecked Sendable {
    // @unchecked: `store`, `latch` and the prune state are touched on the
    // writer's thread only; the rest is under `jobs`' lock.
    static let maxWaitingRecords = 4096
    static let maxWaitingBytes = 32 << 20

    /// Which activity a record is of: one waits per key.
    struct Key: Hashable, Sendable {
        var device: [UInt8]
        var activity: ActivityID
    }

    enum Job {
        /// A record, made on the writer's thread (decoding a payload is
        /// work for it, not for the agent's loop); nil writes nothing.
        /// `key` coalesces (nil: never), `bytes` bounds what waits.
        case write(key: Key?, bytes: Int, @Sendable () -> HistoryRecord?)
        case delete(HistoryDeletion, @Sendable (Result<Int, HandoffError>) -> Void)
        /// Runs on the writer's thread with its store (tests, pruning).
        case run(@Sendable (HistoryStore) -> Void)

        var isWrite: Bool { if case .write = self { true } else { false } }
        var bytes: Int { if case .write(_, let bytes, _) = self { bytes } else { 0 } }
    }

    /// What became of records, since the writer started.
    struct Counts: Sendable, Equatable {
        /// Records submitted (INDEX from apps, other devices' payloads).
        var received = 0
        /// Replaced, while waiting, by a newer state of the same activity.
        var coalesced = 0
        /// Dropped because too many waited.
        var dropped = 0
        /// In a batch the database refused.
        var failed = 0
    }

    private struct Jobs {
        /// In order; nil where a record was coalesced or dropped.
        var waiting: [Job?] = []
        /// Where each keyed record waits, since the last deletion or run
        /// (a record never moves past one).
        var slots: [Key: Int] = [:]
        /// Before this index nothing is a waiting record.
        var scanFrom = 0
        var records = 0
        var bytes = 0
        var counts = Counts()
        var draining = false

        mutating func take() -> [Job] {
            defer { waiting.removeAll(); slots.removeAll(); scanFrom = 0; records = 0; bytes = 0 }
            return waiting.compactMap { $0 }
        }

        mutating func remove(at i: Int) {
            bytes -= waiting[i]?.bytes ?? 0
            records -= 1
            waiting[i] = nil
        }
    }

    private let jobs = Locked(Jobs())
    private let pool = WorkerPool(threads: 1, queueLimit: 4, name: "hoff-history")
    private let store: HistoryStore
    /// What is kept, asked before each prune; the clock in ms.
    private let retention: @Sendable () -> HistoryRetention
    private let now: @Sendable () -> Int64
    private let onError: @Sendable (HandoffError) -> Void
    private let log: @Sendable (String) -> Void
    /// After a batch that wrote or deleted something.
    private let changed: @Sendable () -> Void
    private var lastPrune: Double = -.infinity
    /// Written since the last prune.
    private var sincePrune = 0
    private var latch = HistoryErrorLatch()

    /// `onError` hears a failure once per change of state (the latch),
    /// `log` the recovery.
    init(store: HistoryStore, retention: @escaping @Sendable () -> HistoryRetention,
         now: @escaping @Sendable () -> Int64 = { Int64(wallMilliseconds()) },
         changed: @escaping @Sendable () -> Void = {},
         log: @escaping @Sendable (String) -> Void = { _ in },
         onError: @escaping @Sendable (HandoffError) -> Void) {
        self.changed = changed
        self.store = store
        self.retention = retention
        self.now = now
        self.log = log
        self.onError = onError
    }

    var counts: Counts { jobs.withLock { $0.counts } }
    /// Records dropped because too many waited.
    var dropped: Int { counts.dropped }

    func submit(_ job: Job) {
        let start: Bool = jobs.withLock { j in
            switch job {
            case .write(let key, let bytes, _):
                j.counts.received += 1
                if let key, let i = j.slots[key] {
                    // The newer state replaces the waiting one, at the end.
                    j.remove(at: i)
                    j.counts.coalesced += 1
                }
                while j.records > 0, j.records >= Self.maxWaitingRecords || j.bytes + bytes > Self.maxWaitingBytes {
                    while j.scanFrom < j.waiting.count, !(j.waiting[j.scanFrom]?.isWrite ?? false) { j.scanFrom += 1 }
                    guard j.scanFrom < j.waiting.count else { break }
                    if case .write(let old?, _, _) = j.waiting[j.scanFrom], j.slots[old] == j.scanFrom { j.slots[old] = nil }
                    j.remove(at: j.scanFrom)
                    j.counts.dropped += 1
                }
                if let key { j.slots[key] = j.waiting.count }
                j.records += 1
                j.bytes += bytes
            case .delete, .run:
                j.slots.removeAll()
            }
            j.waiting.append(job)
            guard !j.draining else { return false }
            j.draining = true
            return true
        }
        if start, !pool.submit({ [self] in drain() }) {
            // No thread: fail what waits rather than hold it for ever.
            let failed = jobs.withLock { j -> [Job] in
                defer { j.draining = false }
                return j.take()
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
                return j.take()
            }
            guard let batch else { return }
            var records: [HistoryRecord] = []
            var touched = false
            func writeRecords() {
                guard !records.isEmpty else { return }
                do {
                    try store.write(records)
                    if let line = latch.succeeded("writing the history") { log(line) }
                } catch {
                    let n = records.count
                    jobs.withLock { $0.counts.failed += n }
                    if latch.failed(error) != nil { onError(error) }
                }
                touched = true
                sincePrune += records.count
                records.removeAll()
            }
            for job in batch {
                switch job {
                case .write(_, _, let make):
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

    /// After 64 writes, or a minute after the last prune (the age limit
    /// is the agent's timer's, `HistoryExpiryTimer`).
    private func pruneIfDue() {
        let t = monotonicSeconds()
        guard sincePrune > 0, sincePrune >= 64 || t - lastPrune >= 60 else { return }
        prune()
        lastPrune = t
        sincePrune = 0
    }

    /// Applies the retention now (writer's thread).
    func prune() {
        do {
            try store.prune(retention(), now: now())
        } catch {
            if latch.failed(error) != nil { onError(error) }
        }
    }
}
