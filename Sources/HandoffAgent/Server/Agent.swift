// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The per-user agent (docs/agent.md §1): the device's one engine, on the
/// account and device identity the `handoff` command keeps, shared by every
/// app of the user through an `EndpointHub`, and the local socket's server.
public final class Agent: @unchecked Sendable {
    // @unchecked: immutable after init; the parts are thread-safe.

    /// Where the agent listens.
    public enum Listener: Sendable {
        /// Create the socket at this path (its directory 0700, the socket
        /// 0600) and remove it on `stop`.
        case path(String)
        /// A listening socket systemd passed (socket activation): used
        /// as is, never unlinked.
        case activated(fd: Int32, path: String?)
        /// A socket this process made at `path` (`LocalSocket.listen`,
        /// e.g. before waiting for the account, `AccountWait`): used as
        /// is and removed on `stop`, like `.path`.
        case created(fd: Int32, path: String)
    }

    public let engine: ContinuityEngine
    public let hub: EndpointHub
    public let server: AgentServer
    /// The socket's path (nil: an activated socket of unknown path).
    public let socketPath: String?
    /// The socket file this agent created (device, inode): removed on stop
    /// only if it is still that file (another agent may have replaced it).
    private let created: (dev: UInt64, ino: UInt64)?
    private let stopped = Locked(false)

    /// Opens the socket, starts the engine and the server's loop.
    /// - Throws: `.invalidState` when another agent listens at the path,
    ///   `.permission` for an unsafe socket directory, `.io` when a socket
    ///   cannot be opened (e.g. the beacon port is taken).
    /// Where notifications go, the tray icon (docs/agent.md §6), and the
    /// desktop's search of the history (docs/history.md).
    public enum Notifications: Sendable {
        case off
        /// The session bus at this D-Bus address, or (nil) the one the
        /// environment names.
        case sessionBus(String?)
    }

    public init(configuration: ContinuityConfiguration, listener: Listener, agentVersion: String,
                limits: AgentLimits = AgentLimits(), desktop: AgentDesktop? = nil, notifications: Notifications = .off,
                tray: Notifications = .off, history: String? = nil, search: Notifications = .off, sessionAPI: Notifications = .off,
                pairing pairingOn: Bool = true, pairingLimits: PairingLimits = PairingLimits(),
                log: @escaping AgentLogSink = { _ in }) throws(HandoffError) {
        let fd: Int32
        switch listener {
        case .path(let path):
            try AgentSocketPath.prepareDirectory(for: path)
            fd = try LocalSocket.listen(at: path)
            var info = stat()
            created = stat(path, &info) == 0 ? (UInt64(info.st_dev), UInt64(info.st_ino)) : nil
            socketPath = path
        case .activated(let passed, let path):
            fd = passed
            created = nil
            socketPath = path
        case .created(let passed, let path):
            fd = passed
            var info = stat()
            created = stat(path, &info) == 0 ? (UInt64(info.st_dev), UInt64(info.st_ino)) : nil
            socketPath = path
        }
        do {
            engine = try ContinuityEngine(configuration: configuration)
        } catch {
            Self.release(fd, created: created, path: socketPath)
            throw error
        }
        hub = EndpointHub(service: engine)
        let identity = AgentServer.Identity(agentVersion: agentVersion, device: configuration.device,
                                            accountID: configuration.account.derived.accountID)
        do {
            server = try AgentServer(listener: fd, hub: hub, engine: engine, identity: identity, limits: limits,
                                     desktop: desktop, log: log)
        } catch {
            hub.stop()
            Self.release(fd, created: created, path: socketPath)
            throw error
        }
        // What apps are served with is set up before the loop serves the
        // first one: the loop runs what was posted before it started ahead
        // of any connection. (Else an app that connects at once could have
        // its INDEX read before the history is open, and lost, whenever this
        // thread is slow to post it: a busy machine.)
        func address(_ choice: Notifications) -> String?? {
            if case .sessionBus(let address) = choice { return .some(address) }
            return nil
        }
        var pairingConfig = PairingConfiguration(beacons: configuration.beacons)
        pairingConfig.limits = pairingLimits
        server.startFeatures(AgentFeatureOptions(
            history: history, notifications: address(notifications), tray: address(tray), search: address(search),
            sessionAPI: address(sessionAPI),
            settingsDirectory: configuration.settingsDirectory,
            pairing: pairingOn ? .init(account: configuration.account, deviceName: configuration.device.name,
                                       config: pairingConfig) : nil))
        if let directory = configuration.settingsDirectory {
            // The device file is beside the settings (the account directory).
            server.watchDeviceName(directory: directory)
            // A pause or an exclusion set elsewhere shows once the engine applied it.
            let server = server
            engine.onSettingsApplied { _ in
                server.loop.post {
                    server.trayStateChanged()
                    server.history?.applyExclusions()
                }
            }
        }
        // A document brought from another device can take a while: the log
        // says how far it came, and the apps whose FETCH waits for it hear
        // BRINGING, which moves their deadline.
        let documentServer = server
        engine.onDocumentProgress { p in
            documentServer.loop.post {
                documentServer.log("document-progress", "bringing \(DocumentText.escaped(p.name)) from \(DocumentText.escaped(p.device)): \(p.received) of \(p.total) bytes",
                                   ["name": .string(p.name), "device": .string(p.device),
                                    "received": .int(Int64(p.received)), "total": .int(Int64(p.total))])
                documentServer.sessions.bringing(p)
            }
        }
        do {
            try server.start()
        } catch {
            hub.stop()
            Self.release(fd, created: created, path: socketPath)
            throw error
        }
    }

    /// Stops in order: every app's connection (their advertisements
    /// withdrawn), the engine (withdrawal beacons, channel closed), then
    /// removes the socket file this agent created. Idempotent.
    public func stop() {
        let first = stopped.withLock { s in
            defer { s = true }
            return !s
        }
        guard first else { return }
        server.stop()
        hub.stop()
        Self.unlinkIfOurs(socketPath, created)
    }

    private static func release(_ fd: Int32, created: (dev: UInt64, ino: UInt64)?, path: String?) {
        close(fd)
        unlinkIfOurs(path, created)
    }

    private static func unlinkIfOurs(_ path: String?, _ created: (dev: UInt64, ino: UInt64)?) {
        guard let path, let created else { return }
        var info = stat()
        if lstat(path, &info) == 0, UInt64(info.st_dev) == created.dev, UInt64(info.st_ino) == created.ino {
            unlink(path)
        }
    }
}
