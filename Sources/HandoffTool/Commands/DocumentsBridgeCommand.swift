// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffAgent
import HandoffBase
import HandoffBridges
import HandoffContinuity
import HandoffJSON
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// `handoff documents-bridge`: every app's open document, from what the
/// apps already record, as a Handoff activity (docs/documents.md §7).
enum DocumentsBridgeCommand: Command {
    static let name = "documents-bridge"
    static let summary = "offer the document you work on to your other devices"
    static let synopsis = ["documents-bridge [--elsewhere] [--exclude PATH]..."]
    static let details = """
        Runs until SIGTERM or SIGINT, through the handoff agent. It reads what apps
        record of the documents they open (recently-used.xbel: every GTK, GNOME
        and LibreOffice app and KDE Frameworks; KDE's RecentDocuments) and offers
        the newest document of an app that is still running, as
        org.libhandoff.document under that app's desktop entry id; the offer goes
        when the app exits. Continued on another device (where this bridge is the
        app for that type, org.libhandoff.documents), it opens the same file there
        with the same app, else the default app for its type. Never offered: files
        under /tmp, /var/tmp, XDG_RUNTIME_DIR, /proc, /sys, /dev, files outside
        your home (unless --elsewhere), private bookmarks, folders you excluded
        ([Documents] Exclude= in the settings file, or --exclude) and apps you
        turned off ([App ID] Documents=false). Logs one JSON line per event to
        stderr. See docs/documents.md.
        """
    static let options: [OptionSpec] = [
        .flag("--elsewhere", "also offer files outside your home directory"),
        .repeated("--exclude", "PATH", "never offer files under PATH (besides the settings file's)"),
    ]

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        let start = BridgeStart(command: name, bridge: "documents",
                                environment: ["HOME", "XDG_RUNTIME_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS"])
        let environment = start.environment, home = start.home, log = start.log
        let session = try start.connect(agentOnly: "the documents bridge runs through the handoff agent only")
        let apps = DocumentsApps()
        let receiver = DocumentsReceiver(apps: apps, environment: environment)
        receiver.log = log
        let manifest = try Manifest(bundleIdentifier: DocumentActivityInfo.bundle, teamIdentifier: DocumentActivityInfo.team,
                                    activityTypes: [DocumentActivityInfo.type])
        let app = try Application(manifest: manifest, delegate: receiver, continuity: try session.service(manifest))
        defer { app.stopContinuity() }

        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
        let rules = DocumentOfferRules(home: DocumentsFiles.resolve(home) ?? home,
                                       runtimeDirectory: environment["XDG_RUNTIME_DIR"].map { DocumentsFiles.resolve($0) ?? $0 },
                                       excluded: arguments.values("--exclude").filter { $0.hasPrefix("/") },
                                       elsewhere: arguments.has("--elsewhere"))
        let bridge = DocumentsBridge(apps: apps, dataHome: dataHome,
                                     settings: SettingsStore(directory: session.profile.directory), rules: rules)
        bridge.log = log
        let watches = DocumentsLoop(loop: session.loop, bridge: bridge, log: log, stopOnSignal: session.stopOnSignal)
        bridge.makeApplication = { (bundle: String) throws(HandoffError) -> Application in
            let senderManifest = try Manifest(bundleIdentifier: bundle, teamIdentifier: DocumentActivityInfo.team,
                                              activityTypes: [DocumentActivityInfo.type])
            let made = try Application(manifest: senderManifest, delegate: receiver, continuity: try session.service(senderManifest))
            watches.watchQueue(of: made)
            return made
        }
        bridge.watchProcess = { pid in watches.watchProcess(pid) }
        log(["event": "started", "home": .string(home), "xbel": .string(bridge.xbelPath)])
        let status = watches.run(app)
        bridge.resign(reason: "the bridge stopped")
        for sender in bridge.applications { _ = try? sender.dispatch(); sender.stopContinuity() }
        _ = try? app.dispatch()
        return status
    }
}
