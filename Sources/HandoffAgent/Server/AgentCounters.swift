// SPDX-License-Identifier: MIT OR Apache-2.0
/// What the agent's server did, in counts (STATUS `counters`, tests).
/// Owned by the loop thread; read through `AgentServer.counters`.
public struct AgentCounters: Sendable, Equatable {
    public var accepted = 0
    /// Closed at accept: another uid, or SO_PEERCRED unreadable.
    public var refusedUser = 0
    /// Closed at accept: `maxClients` or `maxClientsPerProcess` reached.
    public var refusedFull = 0
    public var hellos = 0
    /// Connections closed, by reason.
    public var closedByPeer = 0
    public var closedMalformed = 0
    public var closedNoHello = 0
    public var closedHelloTimeout = 0
    public var closedQueueFull = 0
    /// Requests answered ERROR 4609 because 16 were in flight.
    public var refusedInFlight = 0
    /// Unknown message types answered ERROR (or ignored: events).
    public var unknownTypes = 0
    /// Engine requests (PROVIDE, ACCEPT_STREAM) an app answered after the
    /// engine stopped waiting, and those refused because 16 were pending.
    public var lateReplies = 0
    public var refusedAgentRequests = 0
    /// Payloads the engine asked an app for: sent PROVIDE, or answered
    /// from the app's OFFER without asking it.
    public var provides = 0
    public var servedFromOffers = 0
    public var launches = 0
    public var webPagesOpened = 0
    /// Registrations the tray's watcher accepted, and its menu's clicks.
    public var trayRegistrations = 0
    public var trayClicks = 0

    public init() {}

    public var dictionary: [String: Int64] {
        ["accepted": accepted, "refusedUser": refusedUser, "refusedFull": refusedFull, "hellos": hellos,
         "closedByPeer": closedByPeer, "closedMalformed": closedMalformed, "closedNoHello": closedNoHello,
         "closedHelloTimeout": closedHelloTimeout, "closedQueueFull": closedQueueFull,
         "refusedInFlight": refusedInFlight, "unknownTypes": unknownTypes, "lateReplies": lateReplies,
         "refusedAgentRequests": refusedAgentRequests,
         "provides": provides, "servedFromOffers": servedFromOffers, "launches": launches, "webPagesOpened": webPagesOpened,
         "trayRegistrations": trayRegistrations, "trayClicks": trayClicks]
            .mapValues { Int64($0) }
    }
}
