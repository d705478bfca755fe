// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
import HandoffAgent
import HandoffContinuity
import HandoffRelay
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// `handoff agent`: the per-user agent in the foreground (docs/agent.md).
enum AgentCommand: Command {
    static let name = "agent"
    static let summary = "run the per-user agent that serves every app of this user (foreground)"
    static let synopsis = ["agent [--socket PATH] [--no-launch] [--no-notifications] [--no-tray] [--no-search] [--no-bus-api] [--no-pairing] [network options]"]
    static let details = """
        Runs the device's continuity for every app of this user: one engine on the
        account and device identity `handoff account` keeps, and a local socket
        apps connect to (docs/agent.md). Runs until SIGINT or SIGTERM, then
        withdraws what it advertised, closes every connection and removes the
        socket it created.

        The socket is --socket, else $HANDOFF_AGENT_SOCKET, else
        $XDG_RUNTIME_DIR/handoff/agent.sock. Started by systemd with socket
        activation (LISTEN_FDS), the agent takes the socket systemd passes and
        leaves it in place when it stops.

        Started before this device has an account (at login, before `handoff pair`),
        it waits: apps are told "not paired yet" (error 4), one notification says to
        pair, and its tray icon offers "Pair this device…" (which compares a code with
        your other device, as `handoff pair` does); the engine starts as soon as a
        pairing or `handoff account create` stores the account, without a restart. Started while another agent
        serves the socket (the autostart entry beside the systemd units), it logs
        so and exits 0.

        Shows a desktop notification for each activity another device offers that an
        app here (running or installed) or the browser can continue; its "Continue"
        continues it. Without a session bus or a notification server it says so
        once and works on.

        Shows a tray icon (a StatusNotifierItem, for the panels of KDE Plasma, Xfce,
        Cinnamon, MATE, Budgie, and GNOME with the AppIndicator extension) whose
        menu lists what can be continued now (choosing one continues it), the
        account's other devices, "Pause Handoff" and "Pair a new device…". Without
        a tray it says so once and works on; a panel that starts later shows it.
        --no-tray turns it off.

        Serves the history of what you did (activities apps marked eligible for
        search) to the desktop's search: GNOME Shell's search and KRunner find it by
        title, keywords and content, and choosing a result continues it
        (docs/history.md). --no-search turns this off; the history is still kept.

        Serves its state and controls to desktop front ends (a shell extension, a
        settings app) on the session bus as org.libhandoff.Agent: what can be
        continued, the devices, the recent history, Pause, Continue (docs/agent.md
        §15). --no-bus-api turns this off.

        When a new device runs `handoff pair` nearby, the agent sponsors it: once the
        comparison code exists it asks "Pair a new device? Compare: 123 456"; "Pair"
        (when the new device shows the same code) gives it this device's account,
        "Not now" or closing the notification refuses. At most one pairing at a time
        and one question per address every 30 seconds (docs/agent.md §9).
        --no-pairing turns this off (so does --no-notifications).

        Logs one line per notable event on stderr (connections, registrations,
        launches, errors); with --json, one JSON object per line.
        """
    static let options: [OptionSpec] = [
        .value("--socket", "PATH", "where apps connect (default $HANDOFF_AGENT_SOCKET, else $XDG_RUNTIME_DIR/handoff/agent.sock)"),
        .flag("--no-launch", "never launch installed apps nor open web pages for chosen activities"),
        .flag("--no-notifications", "show no desktop notifications (default: on the session bus, when there is one)"),
        .flag("--no-tray", "show no tray icon (default: on the session bus, when a tray runs)"),
        .flag("--no-search", "serve no search of the history to GNOME Shell and KRunner (default: on the session bus)"),
        .flag("--no-bus-api", "serve no session-bus API to desktop front ends (default: on the session bus)"),
        .flag("--no-pairing", "never offer to pair new devices that run `handoff pair` nearby"),
    ] + NetworkOptions.beacons + NetworkOptions.channel

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        Signals.install()
        let relayStore = (try? Profile.open()).map { RelayConfigurationStore(directory: $0.directory) }
        let relayConfigured = relayStore.map { access($0.path, F_OK) == 0 } ?? false
        let settings = try NetworkOptions.settings(arguments, relay: relayConfigured)
        let json = output.json
        let log: AgentLogSink = { event in AgentLogLine.write(event, json: json) }
        let listener: Agent.Listener
        if let activated = try ActivatedSocket.agentListener() {
            listener = .activated(fd: activated, path: AgentSocketPath.resolve())
        } else if let path = arguments.value("--socket") ?? AgentSocketPath.resolve() {
            guard path.hasPrefix("/") else { throw arguments.usage("--socket \(path): give an absolute path") }
            try AgentSocketPath.prepareDirectory(for: path)
            do {
                listener = .created(fd: try LocalSocket.listen(at: path), path: path)
            } catch {
                guard error.code == .invalidState else { throw error }
                // Started twice (autostart beside the units, a second login):
                // the running agent serves; this one is not needed.
                log(AgentLogEvent("already-running", "an agent already listens on \(path): leaving it to serve, exiting",
                                  ["socket": .string(path)]))
                return ExitCode.ok
            }
        } else {
            throw HandoffError(.invalidState,
                               "no socket path: set XDG_RUNTIME_DIR (a login session does) or give --socket PATH")
        }
        let account: AccountKey, device: DeviceIdentity, profile: Profile
        do {
            profile = try Profile.open()
            guard try Self.awaitAccount(profile, listener, arguments, beacons: settings.beacons, log) else {
                Self.release(listener)
                return ExitCode.ok
            }
            account = try profile.account()
            device = try profile.device()
        } catch {
            Self.release(listener)
            throw error
        }
        var config = settings.configuration(account: account, device: device)
        // The devices it verified, listed online or not across restarts.
        config.roster = DeviceRosterFile(store: profile.store, accountID: account.derived.accountID)
        // The person's controls (docs/agent.md "Settings"), applied live.
        config.settingsDirectory = profile.directory
        if let relay = Self.relay(RelayConfigurationStore(directory: profile.directory), account: account, device: device, log) {
            config.paths.append(relay)
        }
        let desktop: AgentDesktop? = arguments.has("--no-launch") ? nil : AgentDesktop.current()

        let notifications: Agent.Notifications = arguments.has("--no-notifications") ? .off : .sessionBus(nil)
        let agent = try Agent(configuration: config, listener: listener, agentVersion: Tool.version, desktop: desktop,
                              notifications: notifications, tray: arguments.has("--no-tray") ? .off : .sessionBus(nil),
                              history: HistoryStore.defaultPath(ProcessEnvironment.current),
                              search: arguments.has("--no-search") ? .off : .sessionBus(nil),
                              sessionAPI: arguments.has("--no-bus-api") ? .off : .sessionBus(nil), pairing: !arguments.has("--no-pairing"), log: log)
        let socket: String = switch listener {
        case .path(let path): path
        case .activated(_, let path): "\(path ?? "?") (from systemd)"
        case .created(_, let path): path
        }
        log(AgentLogEvent("listening", "agent of account \(account.id) as \(device.name) listening on \(socket); "
                            + "beacons: \(NetworkOptions.describe(config.beacons, port: agent.engine.beaconPort)), "
                            + "channel port \(agent.engine.channelPort)",
                          ["socket": .string(socket), "account": .string(account.id), "device": .string(device.name),
                           "beacon_port": .int(Int64(agent.engine.beaconPort)),
                           "channel_port": .int(Int64(agent.engine.channelPort))]))
        let end = MainLoop().run(timeout: nil)
        let why = if case .interrupted(let number) = end { "signal \(number)" } else { "end" }
        log(AgentLogEvent("stopping", "stopping (\(why))"))
        agent.stop()
        log(AgentLogEvent("stopped", "stopped"))
        return ExitCode.ok
    }
}

extension AgentCommand {
    /// The relay `handoff relay set` configured (docs/agent.md §12), its
    /// state changes logged; nil when none is, or when its files cannot be
    /// used (said in the log: the agent runs without it).
    static func relay(_ store: RelayConfigurationStore, account: AccountKey, device: DeviceIdentity,
                      _ log: @escaping AgentLogSink) -> RelaySession? {
        do throws(HandoffError) {
            guard let c = try store.load() else { return nil }
            let broker = AgentRelay.Broker(host: c.host, port: c.port, username: c.username, password: c.password,
                                           tls: c.scheme == .mqtts, caFile: c.caFile)
            let session = try AgentRelay.session(broker, account: account, device: device)
            session.onStatusChange { log(AgentRelay.logEvent($0)) }
            log(AgentLogEvent("relay", "relay: \(c.url), account tag \(RelayTopics(accountKey: account).accountTag)",
                              ["url": .string(c.url)]))
            return session
        } catch {
            log(AgentLogEvent("error", "the relay is not used: \(error.message)"))
            return nil
        }
    }

    /// No account yet: serve "not paired yet" on the socket until one
    /// appears (docs/agent.md §10). False: a signal came first.
    static func awaitAccount(_ profile: Profile, _ listener: Agent.Listener, _ arguments: ParsedArguments,
                             beacons: BeaconTransportConfig, _ log: @escaping AgentLogSink) throws(HandoffError) -> Bool {
        guard try profile.existingAccount() == nil else { return true }
        let fd: Int32 = switch listener {
        case .activated(let fd, _), .created(let fd, _): fd
        case .path: -1
        }
        let notify = !arguments.has("--no-notifications")
        // The tray's "Pair this device…" joins as `handoff pair` would, with
        // the agent's network options.
        let join: AccountWait.Join? = !arguments.has("--no-pairing")
            ? AccountWait.Join(config: PairingConfiguration(beacons: beacons),
                               deviceName: try profile.device().name, store: profile.store)
            : nil
        let surface = AccountWait.Surface(notify: notify, tray: !arguments.has("--no-tray"), join: join)
        let outcome = try AccountWait.run(listener: fd, directory: profile.directory, cancelFD: Signals.fd,
                                          surface: surface, isReady: {
            do throws(HandoffError) {
                return try profile.existingAccount() != nil
            } catch {
                log(AgentLogEvent("error", "the account cannot be read: \(error.message)"))
                return false
            }
        }, log: log)
        if outcome == .cancelled { log(AgentLogEvent("stopped", "stopped while waiting for an account")) }
        return outcome == .ready
    }

    /// Stopped before the agent took the socket: close it, and remove the
    /// file it made (systemd's stays).
    static func release(_ listener: Agent.Listener) {
        switch listener {
        case .activated(let fd, _): close(fd)
        case .created(let fd, let path):
            close(fd)
            unlink(path)
        case .path: break
        }
    }
}

/// The agent's log lines on stderr: "handoff agent: TEXT", or with --json
/// {"event": NAME, "message": TEXT, fields...}.
enum AgentLogLine {
    static func write(_ event: AgentLogEvent, json: Bool) {
        let line: String
        if json {
            var object = JSONObject()
            object["event"] = .string(event.name)
            object["message"] = .string(event.text)
            for (key, value) in event.fields {
                switch value {
                case .string(let s): object[key] = .string(s)
                case .int(let i): object[key] = .int(i)
                case .bool(let b): object[key] = .bool(b)
                }
            }
            line = JSON.object(object).text
        } else {
            line = "handoff agent: \(event.text)"
        }
        Output.writeError(line + "\n")
    }
}
