// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus
import HandoffModel

/// The launcher's session bus (docs/agent.md §5): D-Bus activation of
/// `DBusActivatable` apps and systemd scopes for `Exec` ones go through
/// it. The connection is made when a launch first needs it, kept while it
/// lives and made again (by the next launch) after the bus went away; an agent that launches
/// nothing never connects. A source of the agent's loop: the call is
/// sent at once, and its reply, error or timeout is an event of the loop
/// that reaches the launcher's completion (`SessionBus.process()`).
///
/// Threads: the loop thread only.
public final class LaunchBus: DBusActivating, ScopePlacing, AgentLoopSource {
    private let address: String?
    private let activationTimeout: Double
    private var bus: SessionBus?

    /// `address`: a D-Bus address, or nil for the session bus the
    /// environment names. `activationTimeout`: seconds an Activate may
    /// take (`ApplicationActivator.callTimeout`, 25).
    public init(address: String? = nil, activationTimeout: Double = ApplicationActivator.callTimeout) {
        self.address = address
        self.activationTimeout = activationTimeout
    }

    /// The connection, made now when there is none. One that died is
    /// closed only by `process()` (right after which the loop stops
    /// watching its descriptor, before the number can be reused): until
    /// then launches fall back without it.
    private func connected() throws(DBusError) -> SessionBus {
        if let bus {
            guard bus.isConnected else { throw DBusError(.disconnected, "the session bus connection closed") }
            return bus
        }
        let made = try SessionBus(address: address)
        bus = made
        return made
    }

    // MARK: DBusActivating

    public func activateApplication(desktopID: String, activationToken: String?,
                                    completion: @escaping (Result<Void, HandoffError>) -> Void) throws(HandoffError) {
        let bus: SessionBus
        do {
            bus = try connected()
        } catch {
            throw HandoffError(activating: desktopID, error)
        }
        try ApplicationActivator(bus: bus, timeout: activationTimeout)
            .activateApplication(desktopID: desktopID, activationToken: activationToken, completion: completion)
    }

    // MARK: ScopePlacing

    public func placeInScope(pid: Int32, desktopID: String, description: String,
                             completion: @escaping (Result<String, HandoffError>) -> Void) {
        do {
            SystemdScopes.place(on: try connected(), pid: pid, desktopID: desktopID, description: description,
                                completion: completion)
        } catch {
            completion(.failure(HandoffError(.connectionUnavailable, "no scope for pid \(pid): \(error.message)")))
        }
    }

    // MARK: AgentLoopSource

    public var fd: Int32 { bus?.fd ?? -1 }
    public var pollEvents: Int16 { bus?.events ?? 0 }
    public var timeoutMilliseconds: Int32 { bus?.timeoutMilliseconds ?? -1 }

    /// Dispatches replies; a bus that went away has answered its pending
    /// calls `disconnected` (so their launches fall back) and is dropped.
    public func process() {
        guard let bus, !bus.process() else { return }
        self.bus = nil
    }

    public func loopWillStop() {
        bus?.close()
        bus = nil
    }
}
