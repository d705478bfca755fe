// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The agent's history (docs/history.md): takes INDEX and FORGET from
/// apps, keeps the person's exclusions, and answers searches. Writes go
/// through `HistoryWriter`'s thread; reads use a connection of the loop
/// thread's own.
///
/// Threads: every method on the agent's loop thread, but for `writer`'s
/// completions (on the writer's thread).
public final class AgentHistory: @unchecked Sendable {
    public let path: String
    let writer: HistoryWriter
    private var reader: HistoryStore?
    private let settings: @Sendable () -> HandoffSettings
    private let log: @Sendable (String) -> Void
    /// The exclusions already applied to what is stored.
    private var appliedApps: Set<String> = []
    private var appliedDevices: Set<String> = []
    /// The reader's failures, logged once per change of state (a search
    /// asks at each key typed).
    private var readLatch = HistoryErrorLatch()
    /// The one timer of the age limit (an `AgentLoopSource`).
    let expiry: HistoryExpiryTimer

    /// Opens (creating) the database at `path`; a damaged file is moved
    /// aside (`path.damaged`) and a new one started, once.
    /// - Throws: what `HistoryStore` throws for a path it cannot use.
    /// `changed` runs (on the writer's thread) after what is stored changed.
    public init(path: String, settings: @escaping @Sendable () -> HandoffSettings,
                changed: @escaping @Sendable () -> Void = {},
                log: @escaping @Sendable (String) -> Void) throws(HandoffError) {
        self.path = path
        self.settings = settings
        self.log = log
        let store: HistoryStore
        do {
            store = try HistoryStore(path: path)
        } catch where SQLiteDatabase.isDamaged(error) {
            log("the history database \(path) is damaged (\(error.message)); it is kept as \(path).damaged and a new one started")
            for suffix in ["", "-wal", "-shm"] { _ = rename(path + suffix, path + ".damaged" + suffix) }
            store = try HistoryStore(path: path)
        }
        let retention: @Sendable () -> HistoryRetention = { Self.retention(settings()) }
        let expiry = HistoryExpiryTimer()
        self.expiry = expiry
        writer = HistoryWriter(store: store, retention: retention,
                               changed: { expiry.changed(); changed() },
                               log: { log("history: " + $0) }) { error in log("history: \(error.message)") }
        let writer = writer
        expiry.configure(
            nextExpiry: { [weak self] in self?.nextExpiry() },
            prune: { writer.submit(.run { _ in writer.prune(); expiry.changed(); changed() }) })
        writer.submit(.run { _ in writer.prune() })
        applyExclusions()
    }

    public static func retention(_ s: HandoffSettings) -> HistoryRetention {
        HistoryRetention(days: s.historyDays ?? 30, entries: s.historyEntries ?? 10_000)
    }

    public func stop() { writer.stop() }

    /// What became of records (STATUS counters, doctor).
    var counts: HistoryWriter.Counts { writer.counts }

    /// When the oldest entry expires under the settings now (ms since the
    /// Unix epoch); nil: none (loop thread, through the reader).
    func nextExpiry() -> Int64? {
        do {
            guard let store = readStore() else { return nil }
            return try store.nextExpiry(Self.retention(settings()))
        } catch {
            readFailed(error)
            return nil
        }
    }

    // MARK: From apps

    /// INDEX from `session`'s app: written if the person keeps history
    /// for it, its type is one the app declares and the payload, decoded
    /// on the writer's thread, says eligible for search.
    func index(_ payload: [UInt8], activityID: ActivityID, from session: AgentSession, device: DeviceIdentity) {
        applyExclusions()
        let manifest = session.manifest
        guard settings().historyKeeps(bundleIdentifier: manifest.bundleIdentifier, deviceID: nil) else { return }
        let seen = Int64(wallMilliseconds())
        let log = self.log
        writer.submit(.write(key: .init(device: device.idBytes, activity: activityID), bytes: payload.count) {
            switch HistoryRecord.make(payload: payload, activityID: activityID, deviceID: device.idBytes, deviceName: device.name,
                                      bundle: manifest.bundleIdentifier, team: manifest.teamIdentifier, seen: seen) {
            case .success(let record):
                guard manifest.activityTypes.contains(record.activityType) else {
                    log("history: \(manifest.bundleIdentifier) indexed an activity of type \(record.activityType), which it does not declare: not kept")
                    return nil
                }
                return record
            case .failure(let error):
                if error.code != .invalidState { log("history: \(manifest.bundleIdentifier) indexed a payload that does not decode: \(error.message)") }
                return nil
            }
        })
    }

    /// Whether another device's activity may go into the history now.
    func keeps(_ remote: RemoteActivity) -> Bool {
        settings().historyKeeps(bundleIdentifier: remote.bundleIdentifier, deviceID: remote.deviceID)
    }

    /// Another device's payload, fetched for the history
    /// (`RemoteHistoryWatch`): kept if it says eligible for search.
    func indexRemote(_ payload: [UInt8], _ remote: RemoteActivity) {
        guard keeps(remote), let device = Self.bytes(hex: remote.deviceID) else { return }
        let seen = Int64(wallMilliseconds())
        let log = self.log
        writer.submit(.write(key: .init(device: device, activity: remote.activityID), bytes: payload.count) {
            switch HistoryRecord.make(payload: payload, activityID: remote.activityID, deviceID: device, deviceName: remote.deviceName,
                                      bundle: remote.bundleIdentifier, team: remote.teamIdentifier, seen: seen) {
            case .success(let record): return record
            case .failure(let error):
                if error.code != .invalidState { log("history: \(remote.deviceName)'s payload for \(remote.activityType) does not decode: \(error.message)") }
                return nil
            }
        })
    }

    /// FORGET: `done` hears the outcome on the writer's thread.
    func forget(_ selection: SavedActivitySelection, bundle: String, team: String,
                done: @escaping @Sendable (Result<Int, HandoffError>) -> Void) {
        switch selection {
        case .identifiers(let ids): writer.submit(.delete(.persistentIdentifiers(ids, team: team), done))
        case .all: writer.submit(.delete(.bundle(bundle), done))
        }
    }

    /// Deletes what the person excluded since the last look (an app's or a
    /// device's history turned off: what was kept of it goes too).
    func applyExclusions() {
        let s = settings()
        let apps = s.historyOffApps
        let devices = Set(s.devices.filter { !$0.value.history }.keys)
        for app in apps.subtracting(appliedApps) { writer.submit(.delete(.bundle(app)) { _ in }) }
        for device in devices.subtracting(appliedDevices) {
            if let bytes = Self.bytes(hex: device) { writer.submit(.delete(.device(bytes)) { _ in }) }
        }
        appliedApps = apps
        appliedDevices = devices
        // HistoryDays may have changed: the timer looks again.
        expiry.changed()
    }

    public static func bytes(hex: String) -> [UInt8]? {
        guard hex.utf8.count == 32 else { return nil }
        var out: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            guard let b = UInt8(hex[i..<j], radix: 16) else { return nil }
            out.append(b)
            i = j
        }
        return out
    }

    // MARK: Reading (loop thread)

    private func readStore() -> HistoryStore? {
        if let reader { return reader }
        do {
            reader = try HistoryStore(path: path, create: false)
            if let line = readLatch.succeeded("reading the history") { log(line) }
        } catch {
            readFailed(error)
        }
        return reader
    }

    private func readFailed(_ error: HandoffError) {
        if let line = readLatch.failed(error) { log(line) }
    }

    /// `body` on the reader; an error is logged once per change of state
    /// and answers nil (the desktop's search then shows nothing).
    private func read<T>(_ body: (HistoryStore) throws(HandoffError) -> T) -> T? {
        guard let store = readStore() else { return nil }
        do {
            let value = try body(store)
            if let line = readLatch.succeeded("reading the history") { log(line) }
            return value
        } catch {
            readFailed(error)
            return nil
        }
    }

    /// The entries matching what the person typed, best first.
    public func search(_ query: String, limit: Int) -> [HistoryEntry] {
        read { s throws(HandoffError) in try s.search(query, limit: limit) } ?? []
    }

    /// The newest entries (the tray's "Recent").
    public func newest(_ count: Int) -> [HistoryEntry] {
        read { s throws(HandoffError) in try s.list(limit: count) } ?? []
    }

    public func entries(_ ids: [Int64]) -> [HistoryEntry] {
        read { s throws(HandoffError) in try s.entries(ids) } ?? []
    }

    public func payload(of id: Int64) -> [UInt8]? {
        read { s throws(HandoffError) in try s.payload(of: id) } ?? nil
    }
}
