// SPDX-License-Identifier: MIT OR Apache-2.0
/// The bounds the agent enforces on its local connections (docs/agent.md
/// §3 "Bounds"; §8 of that document lists them as built). Tests shrink the
/// time ones.
public struct AgentLimits: Sendable, Equatable {
    /// Connections at once; one more is closed at accept.
    public var maxClients = 64
    /// Connections at once from one process (SO_PEERCRED pid).
    public var maxClientsPerProcess = 8
    /// Seconds a connection has to say HELLO.
    public var helloTimeout: Double = 5
    /// Requests of one app awaiting the agent's reply; a 17th is answered
    /// ERROR 4609.
    public var maxRequestsInFlight = 16
    /// Requests of the agent (PROVIDE, ACCEPT_STREAM) awaiting one app's
    /// reply; past this the engine is answered 4610 at once for that app.
    public var maxAgentRequestsInFlight = 16
    /// Messages queued for one app that it has not read; one more closes
    /// the connection (nothing is dropped silently).
    public var maxQueuedMessages = 256
    /// Datagrams read from one connection per turn of the loop, so one
    /// busy app cannot starve the others.
    public var readsPerTurn = 32

    public init() {}
}
