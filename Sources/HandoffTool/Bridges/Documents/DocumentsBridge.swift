// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffBridges
import HandoffContinuity
import HandoffJSON
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The sending side (docs/documents.md §7): reads what the apps recorded
/// (`recently-used.xbel`, KDE's `RecentDocuments`), picks the newest
/// document of an app that still runs, and offers it as
/// `org.libhandoff.document` under that app's bundle id (its desktop entry
/// id), through an application of that bundle. The app's first process is
/// watched by a pidfd: when it exits, the offer goes.
final class DocumentsBridge {
    /// Sending applications kept at once (one per app offered lately).
    static let maxSenders = 8

    let apps: DocumentsApps
    let dataHome: String
    let settings: SettingsStore?
    var rules: DocumentOfferRules
    let elsewhereFlag: Bool
    var log: (JSONObject) -> Void = { _ in }
    /// Makes the application of a bundle (through the agent), with the receiver as delegate.
    var makeApplication: (String) throws(HandoffError) -> Application = { _ throws(HandoffError) in
        throw HandoffError(.invalidState, "no application maker")
    }
    /// Tells the loop which process to watch (nil: none).
    var watchProcess: (Int32?) -> Void = { _ in }

    private var senders: [(bundle: String, application: Application)] = []
    private var activity: UserActivity?
    private var activityBundle: String?
    private var offered: DocumentActivityInfo?
    private var lastReason = ""

    init(apps: DocumentsApps, dataHome: String, settings: SettingsStore?, rules: DocumentOfferRules) {
        self.apps = apps
        self.dataHome = dataHome
        self.settings = settings
        self.rules = rules
        self.elsewhereFlag = rules.elsewhere
    }

    var xbelPath: String { dataHome + "/recently-used.xbel" }
    var kdeFolder: String { dataHome + "/RecentDocuments" }
    var applications: [Application] { senders.map(\.application) }

    /// What the apps recorded, newest first, at most `RecentlyUsedReader.keep`.
    func bookmarks() -> [RecentBookmark] {
        var all: [RecentBookmark] = []
        if let bytes = DocumentsFiles.read(xbelPath, max: RecentlyUsedReader.maxBytes) {
            do {
                all = try RecentlyUsedReader.read(bytes)
            } catch {
                log(["event": "unreadable", "file": .string(xbelPath), "message": .string(error.message)])
            }
        }
        all += DocumentsFiles.kdeRecentDocuments(in: kdeFolder, keep: RecentlyUsedReader.keep, home: rules.home)
        return Array(all.sorted { $0.lastUsed > $1.lastUsed }.prefix(RecentlyUsedReader.keep))
    }

    /// The person's opt-outs, from the settings file as every engine reads
    /// it (docs/agent.md §11), read again each time (a small file).
    func optOuts() -> DocumentOptOuts {
        guard let settings else { return DocumentOptOuts() }
        let loaded = settings.load()
        if let problem = loaded.problem {
            log(["event": "settings-unreadable", "message": .string(problem.message)])
        }
        let s = loaded.settings
        return DocumentOptOuts(excluded: s.documents.exclude, elsewhere: s.documents.elsewhere, appsOff: s.documentsOffApps)
    }

    /// After any change (the files, a watched app's exit): offer, keep or resign.
    func update() {
        let optOuts = optOuts()
        var rules = self.rules
        rules.excluded = (self.rules.excluded + optOuts.excluded).map { DocumentsFiles.resolve($0) ?? $0 }
        rules.elsewhere = elsewhereFlag || optOuts.elsewhere
        let processes = DocumentsProcesses()
        var pids: [String: Int32] = [:]
        let outcome = DocumentChoice.choose(bookmarks(), entry: { apps.entry(for: $0) }, isRunning: { entry in
            guard let pid = processes.pid(running: entry.programs, runtimeDirectory: rules.runtimeDirectory) else { return false }
            pids[entry.id] = pid
            return true
        }, check: { bookmark, entry in
            if optOuts.appsOff.contains(entry.bundleIdentifier) {
                return .failure(.init("you turned documents off for \(entry.bundleIdentifier)"))
            }
            guard let path = DocumentOfferRules.localPath(bookmark.href) else {
                return .failure(.init("\(bookmark.href) is not a local file"))
            }
            guard let resolved = DocumentsFiles.resolve(path) else { return .failure(.init("\(path) is not there")) }
            if let refusal = rules.refusal(path: path, resolved: resolved, isPrivate: bookmark.isPrivate) {
                return .failure(.init(refusal))
            }
            guard DocumentsFiles.isRegularFile(resolved) else { return .failure(.init("\(path) is not a regular file")) }
            return .success(path)
        })
        switch outcome {
        case .nothing(let reason):
            resign(reason: reason)
            watchProcess(nil)
        case .offer(let bookmark, let entry, let path):
            let info = DocumentActivityInfo(url: MPRISURLRules.fileURL(path),
                                            cursor: bookmark.description.flatMap(DocumentCursor.fromDescription),
                                            desktopEntry: entry.id, mimeType: bookmark.mimeType)
            offer(info, title: DocumentActivityInfo.title(path: path), bundle: entry.bundleIdentifier, pid: pids[entry.id])
            watchProcess(pids[entry.id])
        }
    }

    private func sender(_ bundle: String) throws(HandoffError) -> Application {
        if let found = senders.first(where: { $0.bundle == bundle }) { return found.application }
        let made = try makeApplication(bundle)
        senders.append((bundle, made))
        if senders.count > Self.maxSenders {
            let old = senders.removeFirst()
            old.application.stopContinuity()
        }
        return made
    }

    private func offer(_ info: DocumentActivityInfo, title: String, bundle wanted: String, pid: Int32?) {
        // A desktop id that is no reverse-DNS name offers under the bridge's own bundle.
        let bundle = (try? Manifest(bundleIdentifier: wanted, teamIdentifier: DocumentActivityInfo.team)) != nil
            ? wanted : DocumentActivityInfo.bundle
        if let activity, activityBundle == bundle, !activity.isInvalidated, offered?.url == info.url {
            guard info != offered || activity.title != title else { return }
            do {
                activity.title = title
                try activity.setUserInfo(info.userInfo)
                activity.needsSave = true
                offered = info
                log(["event": "refreshed", "bundle": .string(bundle), "title": .string(title)])
            } catch {
                log(["event": "error", "message": .string(error.message)])
            }
            return
        }
        resign(reason: nil)
        do {
            let application = try sender(bundle)
            let made = try UserActivity(activityType: DocumentActivityInfo.type)
            made.title = title
            try made.setUserInfo(info.userInfo)
            try application.becomeCurrent(made)
            activity = made
            activityBundle = bundle
            offered = info
            lastReason = ""
            var line: JSONObject = ["event": "offered", "id": .string(made.activityID.uuidString), "bundle": .string(bundle),
                                    "title": .string(title), "url": .string(info.url), "pid": .int(Int64(pid ?? 0))]
            if let cursor = info.cursor { line["line"] = .int(Int64(cursor.line)); line["column"] = .int(Int64(cursor.column)) }
            log(line)
        } catch {
            activity = nil
            log(["event": "error", "message": .string(error.message)])
        }
    }

    /// Withdraws the offer; `reason` (when given and new) is logged as not-offered.
    func resign(reason: String?) {
        if let activity, let bundle = activityBundle, let application = senders.first(where: { $0.bundle == bundle })?.application {
            application.resignCurrent(activity)
            log(["event": "resigned", "title": .string(activity.title ?? "")])
        }
        activity = nil
        activityBundle = nil
        offered = nil
        if let reason, reason != lastReason {
            lastReason = reason
            log(["event": "not-offered", "reason": .string(reason)])
        }
    }
}
