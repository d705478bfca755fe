// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// Who continues an activity the person chose (docs/agent.md §13 "Who
/// continues what"): a running app (CONTINUE, brought forward), an
/// installed app launched for it (the choice kept until it says HELLO), a
/// connected browser bridge or the default browser for its web page. The
/// policy only: what is offered, which apps run and the desktop come from
/// its owner (`AgentServer`). Loop thread only.
final class ContinueRouter {
    /// Nil: no installed apps are launched and no web page is opened.
    let desktop: AgentDesktop?
    /// The activities offered now (the hub's).
    private let offered: () -> [RemoteActivity]
    /// The connected apps, in no order.
    private let running: () -> [any ContinuingApp]
    /// The person's settings (which apps may claim web domains).
    private let settings: () -> HandoffSettings
    private let count: ((inout AgentCounters) -> Void) -> Void
    private let logSink: AgentLogSink
    /// "No systemd user manager" was logged: once is enough.
    private var saidNoUserManager = false
    /// When the installed apps were last looked at for a lookup (monotonic s).
    private var appsRescanned = -Double.infinity

    init(desktop: AgentDesktop?, offered: @escaping () -> [RemoteActivity], running: @escaping () -> [any ContinuingApp],
         settings: @escaping () -> HandoffSettings, count: @escaping ((inout AgentCounters) -> Void) -> Void,
         log: @escaping AgentLogSink) {
        self.desktop = desktop
        self.offered = offered
        self.running = running
        self.settings = settings
        self.count = count
        self.logSink = log
    }

    private func log(_ name: String, _ text: String, _ fields: KeyValuePairs<String, AgentLogEvent.Value> = [:]) {
        logSink(AgentLogEvent(name, text, fields))
    }

    /// Continues `activityID` as the person would from a notification
    /// (CHOOSE), in the order of docs/agent.md §13 "Who continues what":
    /// for a browsing-web page, an app claiming its domain (running, else
    /// installed and launched); then an app of the sender's team declaring
    /// the type (running: the sender's bundle first, then the one connected
    /// longest; else installed and launched: it gets CONTINUE when it says
    /// HELLO); else the http(s) page, in a connected browser bridge or the
    /// default browser. `activationToken` (the notification's) goes to the
    /// launched app. Loop thread.
    /// - Returns: what was done, or 4609 (not offered now) / 4608 (nothing
    ///   here can continue it).
    func choose(_ activityID: ActivityID, activationToken: String? = nil) -> Result<ContinueChoice, HandoffError> {
        guard let remote = offered().first(where: { $0.activityID == activityID }) else {
            return .failure(HandoffError(.connectionUnavailable, "no device offers activity \(activityID.uuidString) now"))
        }
        return choose(remote: remote, activationToken: activationToken)
    }

    /// `choose` for an activity already in hand: one offered now, or one
    /// from the history (`continueHistoryEntry`). Loop thread.
    func choose(remote: RemoteActivity, activationToken: String?) -> Result<ContinueChoice, HandoffError> {
        let claimers = runningContinuers(of: remote, by: .webDomain)
        if let (session, offered) = claimers.first {
            return .success(deliver(offered, to: session, activationToken: activationToken))
        }
        if let desktop {
            for warning in desktop.installed.rescan() { log("desktop", warning) }
            desktop.pending.expire()
            let installedClaimers = installedClaimers(of: remote, on: desktop)
            if !installedClaimers.isEmpty,
               case .success(let choice)? = launchFirst(remote, installedClaimers[...], on: desktop, activationToken: activationToken).result {
                return .success(choice)
            }
        }
        if let (session, offered) = runningContinuers(of: remote, by: .declared).first {
            return .success(deliver(offered, to: session, activationToken: activationToken))
        }
        guard let desktop else {
            if let choice = openInBrowserBridge(remote, activationToken: activationToken) { return .success(choice) }
            return .failure(HandoffError(.handoffFailed, "no running app continues \(remote.activityType) of team \(remote.teamIdentifier)"))
        }
        let candidates = desktop.installed.apps(continuing: remote.teamIdentifier, type: remote.activityType,
                                                preferring: remote.bundleIdentifier)
        return launchOrOpen(remote, candidates[...], on: desktop, activationToken: activationToken)
    }

    /// CONTINUE to a running app, which is brought forward.
    private func deliver(_ offered: RemoteActivity, to session: any ContinuingApp, activationToken: String?) -> ContinueChoice {
        session.continueActivity(offered, activationToken: activationToken)
        log("continue", "\(offered.activityType) from \(offered.deviceName) continues in \(session.describe)",
            ["activity": .string(offered.activityID.uuidString), "bundle": .string(session.manifest.bundleIdentifier)])
        bringForward(session.manifest.bundleIdentifier, activationToken: activationToken)
        return .running(session.manifest.bundleIdentifier)
    }

    /// The installed apps claiming `remote`'s page (not those the person
    /// turned off), in precedence order.
    private func installedClaimers(of remote: RemoteActivity, on desktop: AgentDesktop) -> [InstalledApp] {
        let settings = settings()
        return desktop.installed.apps.filter {
            ActivityGate.claimedPage(remote, by: $0.manifest) && settings.webDomainsAllowed(for: $0.bundleIdentifier)
        }
    }

    /// A connected browser bridge (a running app declaring
    /// `NSUserActivityTypeBrowsingWeb`) opens `remote`'s http(s) page: it
    /// gets CONTINUE as gated for it (for its web page only, unless the
    /// page is its own team's browsing-web activity). The one connected
    /// longest; nil when none runs or there is no page.
    private func openInBrowserBridge(_ remote: RemoteActivity, activationToken: String?) -> ContinueChoice? {
        guard let url = ActivityGate.webPage(remote.webpageURL) else { return nil }
        let browsers = running()
            .filter { $0.isRegistered && !$0.isObserver && $0.manifest.declares(ActivityGate.browsingWebType) }
            .sorted { $0.connectionOrder < $1.connectionOrder }
        guard let session = browsers.first, let offered = ActivityGate.offer(remote, to: session.audience) else { return nil }
        session.continueActivity(offered, activationToken: activationToken)
        count { $0.webPagesOpened += 1 }
        log("web", "\(session.describe) opens \(url.absoluteString) for \(remote.activityType) from \(remote.deviceName)",
            ["activity": .string(remote.activityID.uuidString), "url": .string(url.absoluteString),
             "bundle": .string(session.manifest.bundleIdentifier)])
        return .webPage(url)
    }

    /// A running app that is `DBusActivatable=true` gets
    /// `org.freedesktop.Application.Activate` with the click's token as
    /// platform data, as a desktop launcher does, so it raises its window
    /// (docs/agent.md §5). Other running apps get the token with CONTINUE
    /// only (docs/agent.md §3). Its failure is logged, nothing else.
    private func bringForward(_ bundle: String, activationToken: String?) {
        guard let desktop, let dbus = desktop.launcher.dbus,
              let app = desktop.installed.app(bundleIdentifier: bundle), app.dbusActivatable else { return }
        let fields: KeyValuePairs<String, AgentLogEvent.Value> = [
            "bundle": .string(bundle), "desktop": .string(app.desktopID),
            "token": .bool(ActivationToken.checked(activationToken) != nil)]
        do {
            try dbus.activateApplication(desktopID: app.desktopID, activationToken: activationToken) { [unowned self] result in
                if case .failure(let error) = result {
                    self.log("raise-failed", "could not bring \(app.desktopID) forward: \(error.message)", fields)
                }
            }
            log("raise", "asked \(app.desktopID) to come forward (Activate)", fields)
        } catch {
            log("raise-failed", "could not bring \(app.desktopID) forward: \(error.message)", fields)
        }
    }

    /// The "No app here continues …" notice's "Install"
    /// (docs/agent.md §6): the software centre at the sender's bundle id.
    /// Loop thread.
    func openInstall(for activityID: ActivityID, activationToken: String?) -> Result<Void, HandoffError> {
        guard let remote = offered().first(where: { $0.activityID == activityID }) else {
            return .failure(HandoffError(.connectionUnavailable, "no device offers activity \(activityID.uuidString) now"))
        }
        guard let desktop else { return .failure(HandoffError(.handoffFailed, "the agent has no desktop to open things with")) }
        do {
            let pid = try desktop.web.openAppStream(remote.bundleIdentifier, activationToken: activationToken)
            log("install", "opened the software centre at \(remote.bundleIdentifier) (pid \(pid))",
                ["activity": .string(activityID.uuidString), "bundle": .string(remote.bundleIdentifier)])
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// Why no installed app continues `remote` although one is named like
    /// its bundle id: that entry declares no activity types. Nil otherwise.
    func undeclaredReason(_ remote: RemoteActivity) -> String? {
        guard let path = desktop?.installed.undeclared[remote.bundleIdentifier + ".desktop"] else { return nil }
        return "\(path) is named like the sender's app but declares nothing for Handoff (no \(InstalledApps.activityTypesKey) and \(InstalledApps.teamIdentifierKey) keys, no manifest), so it is not asked"
    }

    /// Whether the sender's app may be found in a software centre (an
    /// "Install" action on the "no app" notice; `AppStreamLink`).
    func installable(_ remote: RemoteActivity) -> Bool {
        desktop != nil && AppStreamLink.url(for: remote.bundleIdentifier) != nil
    }

    /// Launches the first of `candidates` that starts (the choice kept for
    /// it), else opens the web page. A D-Bus activation that fails later
    /// without an `Exec` to fall back on comes back here with the rest.
    private func launchOrOpen(_ remote: RemoteActivity, _ candidates: ArraySlice<InstalledApp>, on desktop: AgentDesktop,
                              activationToken: String?, failed: [String] = []) -> Result<ContinueChoice, HandoffError> {
        let launch = launchFirst(remote, candidates, on: desktop, activationToken: activationToken, failed: failed)
        if let result = launch.result { return result }
        if let choice = openInBrowserBridge(remote, activationToken: activationToken) { return .success(choice) }
        if let url = ActivityGate.webPage(remote.webpageURL) {
            do {
                try desktop.web.open(url.absoluteString, activationToken: activationToken)
                count { $0.webPagesOpened += 1 }
                log("web", "opened \(url.absoluteString) for \(remote.activityType) from \(remote.deviceName)",
                    ["activity": .string(remote.activityID.uuidString), "url": .string(url.absoluteString)])
                return .success(.webPage(url))
            } catch {
                log("web-failed", error.message, ["url": .string(url.absoluteString)])
                return .failure(HandoffError(.handoffFailed, error.message))
            }
        }
        if !launch.failed.isEmpty {
            // Installed, but it did not start: say so, not "no app".
            return .failure(HandoffError(.handoffFailed,
                                         "\(launch.failed.joined(separator: ", ")) did not start (see launch-failed above), and \(remote.activityType) has no web page"))
        }
        let why = undeclaredReason(remote).map { " (\($0))" } ?? ""
        return .failure(HandoffError(.handoffFailed,
                                     "no app here continues \(remote.activityType) of team \(remote.teamIdentifier), and it has no web page\(why)"))
    }

    /// Launches the first of `candidates` that starts (the choice kept for
    /// it): its result, or nil with the desktop ids that did not start.
    private func launchFirst(_ remote: RemoteActivity, _ candidates: ArraySlice<InstalledApp>, on desktop: AgentDesktop,
                             activationToken: String?, failed: [String] = []) -> (result: Result<ContinueChoice, HandoffError>?, failed: [String]) {
        let activityID = remote.activityID
        var failed = failed
        var rest = candidates
        while let app = rest.popFirst() {
            let others = rest
            do {
                let launch = try desktop.launcher.launch(app, activationToken: activationToken) { [unowned self] outcome in
                    self.launched(app, outcome, for: remote, others: others, on: desktop, activationToken: activationToken)
                }
                desktop.pending.add(remote, for: app.bundleIdentifier)
                count { $0.launches += 1 }
                let how: String = switch launch {
                case .dbus(let address): "D-Bus activation of \(address.busName)"
                case .process(let pid): "pid \(pid)"
                case .processInstead(let pid, let error): "pid \(pid); D-Bus activation failed: \(error.message)"
                }
                log("launch", "launched \(app.desktopID) (\(how)) to continue \(remote.activityType) from \(remote.deviceName)",
                    ["activity": .string(activityID.uuidString), "bundle": .string(app.bundleIdentifier),
                     "desktop": .string(app.desktopID), "how": .string(launch.word),
                     "token": .bool(ActivationToken.checked(activationToken) != nil)])
                return (.success(.launched(app.bundleIdentifier)), failed)
            } catch {
                failed.append(app.desktopID)
                log("launch-failed", "cannot launch \(app.desktopID): \(error.message)",
                    ["bundle": .string(app.bundleIdentifier), "desktop": .string(app.desktopID)])
            }
        }
        return (nil, failed)
    }

    /// What became of a D-Bus activation (on a later turn of the loop).
    private func launched(_ app: InstalledApp, _ outcome: Launcher.Outcome, for remote: RemoteActivity,
                          others: ArraySlice<InstalledApp>, on desktop: AgentDesktop, activationToken: String?) {
        let fields: KeyValuePairs<String, AgentLogEvent.Value> = [
            "activity": .string(remote.activityID.uuidString), "bundle": .string(app.bundleIdentifier),
            "desktop": .string(app.desktopID)]
        switch outcome {
        case .activated:
            log("activated", "\(app.desktopID) answered its D-Bus activation", fields)
        case .processInstead(let pid, let error):
            // Its Exec has the full time to connect.
            desktop.pending.renew(for: app.bundleIdentifier)
            log("launch-fallback", "D-Bus activation of \(app.desktopID) failed (\(error.message)): started its Exec, pid \(pid)",
                fields)
        case .failed(let error):
            log("launch-failed", "cannot launch \(app.desktopID): \(error.message)", fields)
            // Only while the choice still waits for this app: it may have
            // connected after all, or the person chose again.
            guard desktop.pending.choice(for: app.bundleIdentifier)?.activityID == remote.activityID else { return }
            _ = desktop.pending.take(for: app.bundleIdentifier)
            if case .failure(let error) = launchOrOpen(remote, others, on: desktop, activationToken: activationToken,
                                                       failed: [app.desktopID]) {
                log("choose-failed", "cannot continue \(remote.activityID.uuidString): \(error.message)",
                    ["activity": .string(remote.activityID.uuidString), "code": .int(Int64(error.code.rawValue))])
            }
        }
    }

    /// What became of a launched program's systemd scope.
    func scoped(_ app: InstalledApp, _ pid: Int32, _ result: Result<String, HandoffError>) {
        switch result {
        case .success(let unit):
            log("scope", "pid \(pid) (\(app.desktopID)) runs in \(unit)", ["pid": .int(Int64(pid)), "unit": .string(unit)])
        case .failure(let error) where error.code == .connectionUnavailable:
            // No user manager is the normal case on many desktops: said once.
            guard !saidNoUserManager else { return }
            saidNoUserManager = true
            log("scope-none", "no systemd user manager: launched programs stay in the agent's cgroup "
                    + "(said once; \(error.message))", ["pid": .int(Int64(pid))])
        case .failure(let error):
            log("scope-failed", "pid \(pid) (\(app.desktopID)) stays in the agent's cgroup: \(error.message)",
                ["pid": .int(Int64(pid))])
        }
    }

    /// What would continue `remote` if the person chose it now, without
    /// doing it (the notification shows only what can be continued): the
    /// order of `choose`. Loop thread.
    func continuer(of remote: RemoteActivity, rescanning: Bool) -> ContinueTarget? {
        if let session = runningContinuers(of: remote, by: .webDomain).first {
            return ContinueTarget(desktop?.installed.app(bundleIdentifier: session.0.manifest.bundleIdentifier))
        }
        if let desktop {
            if rescanning { for warning in desktop.installed.rescan() { log("desktop", warning) } }
            if let app = installedClaimers(of: remote, on: desktop).first { return ContinueTarget(app) }
        }
        if let session = runningContinuers(of: remote, by: .declared).first {
            // A browser bridge continues a page by opening it: "Open in browser".
            if remote.activityType.utf8.elementsEqual(ActivityGate.browsingWebType.utf8),
               session.0.manifest.declares(ActivityGate.browsingWebType) {
                return .webPage
            }
            return ContinueTarget(desktop?.installed.app(bundleIdentifier: session.0.manifest.bundleIdentifier))
        }
        if let desktop, let app = desktop.installed.apps(continuing: remote.teamIdentifier, type: remote.activityType,
                                                         preferring: remote.bundleIdentifier).first {
            return ContinueTarget(app)
        }
        return ActivityGate.webPage(remote.webpageURL) != nil ? .webPage : nil
    }

    /// The running apps that may continue `remote` for the reason `match`
    /// (not for its web page only; a claim the person turned off does not
    /// count), in the order CHOOSE tries them: the sender's bundle id
    /// first, then the one connected longest.
    private func runningContinuers(of remote: RemoteActivity, by match: ActivityGate.Match) -> [(any ContinuingApp, RemoteActivity)] {
        let settings = settings()
        return running()
            .filter { $0.isRegistered && !$0.isObserver && ActivityGate.match(remote, $0.manifest) == match }
            .filter { match != .webDomain || settings.webDomainsAllowed(for: $0.manifest.bundleIdentifier) }
            .compactMap { session in
                ActivityGate.offer(remote, to: session.audience).flatMap { $0.isWebOnly ? nil : (session, $0) }
            }
            .sorted { a, b in
                let (sameA, sameB) = (a.0.manifest.bundleIdentifier == remote.bundleIdentifier,
                                      b.0.manifest.bundleIdentifier == remote.bundleIdentifier)
                return sameA != sameB ? sameA : a.0.connectionOrder < b.0.connectionOrder
            }
    }

    /// The installed app of `bundle`, for a search result's or the tray's
    /// Recent entry's name and icon (nil: none here, or no desktop). The
    /// apps are looked at again at most every 10 seconds: a search asks at
    /// each key typed. Loop thread.
    func installedApp(bundle: String) -> InstalledApp? {
        guard let desktop else { return nil }
        let now = monotonicSeconds()
        if now - appsRescanned >= 10 {
            appsRescanned = now
            for warning in desktop.installed.rescan() { log("desktop", warning) }
        }
        return desktop.installed.app(bundleIdentifier: bundle)
    }

    /// How a person knows the app of `bundle` (`InstalledApps.label`),
    /// looked at again as `installedApp(bundle:)` does. Loop thread.
    func appLabel(bundle: String, team: String? = nil, type: String? = nil) -> AppLabel? {
        _ = installedApp(bundle: bundle)  // the rescan, at most every 10 s
        return desktop?.installed.label(bundle: bundle, team: team, type: type)
    }

    /// A continuation chosen for an app being launched, if `bundle` has
    /// one kept (and not expired). Loop thread.
    func takePendingLaunch(for bundle: String) -> RemoteActivity? {
        guard let desktop else { return nil }
        for dropped in desktop.pending.expire() {
            log("launch-expired", "\(dropped.activityType): the launched app did not connect in time")
        }
        return desktop.pending.take(for: bundle)
    }
}
