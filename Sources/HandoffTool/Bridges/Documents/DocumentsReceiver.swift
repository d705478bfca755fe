// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffBridges
import HandoffJSON
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The receiving side (docs/documents.md §7 "Continuing it"): the bridge
/// is the app for `org.libhandoff.document`. It opens the document here
/// with the same desktop entry the sender's app had (its Exec, the file
/// where `%f`/`%u` stands, `--line`/`--column` never guessed), else the
/// person's default app for its MIME type, both only when they declare the
/// type this device gives the file by its name (shared-mime-info) and that
/// type does not run what is in the file. The receiving engine has already
/// mapped the URL to this device's file (§4); a path that does not exist
/// here fails the continuation (4608).
final class DocumentsReceiver: ApplicationDelegate {
    let apps: DocumentsApps
    let environment: [String: String]
    var log: (JSONObject) -> Void = { _ in }

    init(apps: DocumentsApps, environment: [String: String]) {
        self.apps = apps
        self.environment = environment
    }

    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool { false }

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: RestorationHandler) -> Bool {
        guard userActivity.activityType == DocumentActivityInfo.type else { return false }
        let info: DocumentActivityInfo
        switch DocumentActivityInfo.parse(userActivity.userInfo) {
        case .failure(let error):
            return refuse("the activity cannot be read: \(error.reason)")
        case .success(let parsed):
            info = parsed
        }
        guard let path = DocumentOfferRules.localPath(info.url) else { return refuse("\(info.url) is not a local file") }
        guard DocumentsFiles.isRegularFile(path) else {
            return refuse("the document \(path) is not on this device")
        }
        // How the file is opened is decided from the file here, never from
        // what the peer said: its type by its name, never one whose opening
        // runs it, and only by an app that declares that type and takes a
        // file (the sender's app first, else the person's default).
        let name = String(path.split(separator: "/").last ?? "")
        let type = apps.globs.type(ofName: name)
        guard !MimeGlobs.runs(type) else {
            return refuse("\(name) is a program or launcher (\(type)): a document from another device is never opened as one")
        }
        func opens(_ app: DocumentsApps.Installed) -> Bool {
            app.entry.takesFiles && !app.entry.noDisplay && app.entry.mimeTypes.contains(type)
        }
        var app = info.desktopEntry.flatMap { apps.installed($0) }
        if app == nil, info.desktopEntry != nil {
            apps.rescan()
            app = info.desktopEntry.flatMap { apps.installed($0) }
        }
        if let named = app, !opens(named) { app = nil }
        if app == nil { app = apps.defaultApp(for: type, environment: environment).flatMap { opens($0) ? $0 : nil } }
        guard let app else {
            return refuse("no app here opens \(name) (\(type))")
        }
        let exec = app.exec.opening(path: path, fileURL: MPRISURLRules.fileURL(path))
        do {
            let pid = try Launcher(dbus: nil, searchPath: apps.directories.searchPath)
                .run(exec, in: app.workingDirectory, for: app.path)
            var line: JSONObject = ["event": "launched", "entry": .string(app.entry.id), "pid": .int(Int64(pid)),
                                    "path": .string(path), "argv": .array(exec.arguments.map { .string($0) })]
            if let cursor = info.cursor { line["line"] = .int(Int64(cursor.line)); line["column"] = .int(Int64(cursor.column)) }
            log(line)
            return true
        } catch {
            return refuse("\(app.entry.id) could not be started: \(error.message)")
        }
    }

    /// A continuation that failed before it reached the bridge (the
    /// document could not be described, found or brought): logged too.
    func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String,
                     error: HandoffError) {
        log(["event": "continue-failed", "code": .int(Int64(error.code.rawValue)), "reason": .string(error.message)])
    }

    /// Logged with code 4608 and not confirmed: the sender keeps its offer.
    private func refuse(_ reason: String) -> Bool {
        log(["event": "continue-failed", "code": .int(4608), "reason": .string(reason)])
        return false
    }
}
