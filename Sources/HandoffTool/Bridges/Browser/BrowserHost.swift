// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBridges
import HandoffContinuity
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The browser bridge's app (docs/browser.md): the page the extension says
/// is in front becomes the current activity, as Safari's does; a page
/// another device hands here opens through the extension. An app like any
/// other, in agent mode: the agent does discovery, gating and the network.
final class BrowserHost: ApplicationDelegate, @unchecked Sendable {
    // @unchecked: used on the main thread only; the agent's answers are
    // posted back to it through the app's queue.
    static let bundleIdentifier = "org.libhandoff.browser"
    static let team = "LIBHANDOFF"

    static func manifest() throws(HandoffError) -> Manifest {
        try Manifest(bundleIdentifier: bundleIdentifier, teamIdentifier: team, activityTypes: [ActivityGate.browsingWebType])
    }

    private let input: Int32
    private let output: Int32
    private let log: (String) -> Void
    private let connect: (any ApplicationDelegate) throws(HandoffError) -> (Application, AgentClient?)
    private var app: Application?
    private var agent: AgentClient?
    private var connectError: String?
    private var current: UserActivity?
    private var decoder = NativeMessageDecoder()
    /// One STATUS to the agent at a time: asks while one is out are
    /// answered together when it comes back.
    private var statusAsked = false
    private var statusWanted = false
    private weak var loop: MainLoop?
    /// What the host ends with: 0 at a message boundary, 1 otherwise.
    private(set) var exitStatus: Int32 = 0

    /// `connect` makes the app (in agent mode, this host its delegate) and
    /// gives its agent client; tried at start and again when the extension
    /// asks while it failed.
    init(input: Int32, output: Int32, log: @escaping (String) -> Void,
         connect: @escaping (any ApplicationDelegate) throws(HandoffError) -> (Application, AgentClient?)) {
        self.input = input
        self.output = output
        self.log = log
        self.connect = connect
    }

    /// Runs until the browser closes stdin, the stream breaks, or a signal.
    func run(_ loop: MainLoop) -> Int32 {
        self.loop = loop
        _ = ensureConnected()
        loop.watch(input) { [unowned self] in self.readInput() }
        _ = loop.run(timeout: nil)
        if let current { app?.resignCurrent(current) }
        app?.stopContinuity()
        return exitStatus
    }

    /// The app, connecting first if needed; nil (with `connectError`) when
    /// the agent cannot be reached.
    private func ensureConnected() -> Application? {
        if let app { return app }
        do {
            let (app, agent) = try connect(self)
            self.app = app
            self.agent = agent
            loop?.add(app.queue)
            connectError = nil
            log("connected to the handoff agent")
            return app
        } catch {
            if connectError != error.message { log("no handoff agent: \(error.message)") }
            connectError = error.message
            return nil
        }
    }

    // MARK: From the browser

    private func readInput() {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        let n = read(input, &buffer, buffer.count)
        if n < 0 && (errno == EINTR || errno == EAGAIN) { return }
        guard n > 0 else {
            // The browser went away: what was offered is withdrawn (run's end).
            if !decoder.isAtBoundary {
                log("the browser closed the stream inside a message")
                exitStatus = 1
            }
            finish()
            return
        }
        for event in decoder.feed(buffer[0..<n]) {
            switch event {
            case .message(let bytes): handle(bytes)
            case .skipped(let length):
                log("refused a message of \(length) bytes (at most \(NativeMessageDecoder.maxMessage))")
                send(.error("a message of \(length) bytes is over the \(NativeMessageDecoder.maxMessage)-byte limit", about: nil))
            case .broken(let reason):
                log("ending: \(reason)")
                exitStatus = 1
                finish()
                return
            }
        }
    }

    private func finish() {
        loop?.unwatch(input)
        loop?.stop()
    }

    private func handle(_ bytes: [UInt8]) {
        let request: BrowserRequest
        do {
            request = try BrowserRequest.decode(bytes)
        } catch {
            log("refused a message: \(error.reason)")
            // A page that may not be offered replaces the one that was.
            if error.about == "current" { resign() }
            send(.error(error.reason, about: error.about))
            return
        }
        switch request {
        case .hello(let browser, let version):
            log("hello from \(browser ?? "a browser") (version \(version.map(String.init) ?? "?"))")
            sendStatus()
        case .status:
            sendStatus()
        case .current(let page, let title):
            offer(page, title: title)
        case .resign:
            resign()
        }
    }

    private func offer(_ page: URLReference, title: String?) {
        guard let app = ensureConnected() else {
            send(.error("not offered: \(connectError ?? "no handoff agent")", about: "current"))
            return
        }
        do {
            if let current, !current.isInvalidated {
                // The same activity, updated: one advert that changes.
                current.title = title
                try current.setWebpageURL(page)
            } else {
                let activity = try UserActivity(activityType: ActivityGate.browsingWebType)
                activity.title = title
                try activity.setWebpageURL(page)
                try app.becomeCurrent(activity)
                current = activity
            }
        } catch {
            log("cannot offer \(page.absoluteString): \(error)")
            send(.error("not offered: \(error)", about: "current"))
        }
    }

    private func resign() {
        guard let current else { return }
        app?.resignCurrent(current)
        current.invalidate()
        self.current = nil
    }

    private func sendStatus() {
        guard ensureConnected() != nil, let agent else {
            send(.status(agent: false, devices: [], reason: connectError ?? "no handoff agent"))
            return
        }
        guard let queue = app?.queue else { return }
        guard !statusAsked else {
            statusWanted = true
            return
        }
        statusAsked = true
        agent.status { [weak self] result in
            queue.post { [weak self] in
                guard let self else { return }
                self.statusAsked = false
                defer {
                    if self.statusWanted {
                        self.statusWanted = false
                        self.sendStatus()
                    }
                }
                switch result {
                case .success(let status):
                    // Where an offer can go: the devices that receive.
                    let names = status.roster.filter { $0.role == .full }.map(\.deviceName)
                        + status.remotes.filter { $0.role == .full }.map(\.deviceName)
                    var seen: Set<String> = []
                    self.send(.status(agent: true, devices: names.filter { seen.insert($0).inserted }, reason: nil))
                case .failure(let error):
                    self.send(.status(agent: false, devices: [], reason: error.message))
                }
            }
        }
    }

    // MARK: To the browser

    private func send(_ reply: BrowserReply) {
        guard let frame = reply.frame else { return }
        var written = 0
        while written < frame.count {
            let n = frame[written...].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                log("cannot write to the browser: \(String(cString: strerror(errno)))")
                finish()
                return
            }
            written += n
        }
    }

    // MARK: ApplicationDelegate: pages handed here

    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool { true }

    /// A browser's page from another device (its own team's type).
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: RestorationHandler) -> Bool {
        guard let page = ActivityGate.webPage(userActivity.webpageURL) else {
            log("continued \(userActivity.activityType) without a web page: nothing to open")
            return false
        }
        // The device it came from, as the app was told of it (empty if no longer listed).
        let device = application.availableActivities.first { $0.activityID == userActivity.activityID }?.deviceName
        log("opening \(page.absoluteString)")
        send(.open(page: page, from: device ?? ""))
        return true
    }

    /// Any other app's activity, for its web page (no app here continues it).
    func application(_ application: Application, openWebpage url: URLReference, for remote: RemoteActivity) {
        log("opening \(url.absoluteString) from \(remote.deviceName)")
        send(.open(page: url, from: remote.deviceName))
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String,
                     error: HandoffError) {
        log("could not continue \(activityType): \(error.message)")
    }

}
