// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity

/// The server's open connections that are sessions, by their accept order
/// (`AgentConnection.token`). A object of its own so the router, made
/// before the server is whole, can be handed a view of it. Loop thread.
final class AgentSessions {
    private var byToken: [UInt64: AgentSession] = [:]

    subscript(token: UInt64) -> AgentSession? {
        get { byToken[token] }
        set { byToken[token] = newValue }
    }

    var values: Dictionary<UInt64, AgentSession>.Values { byToken.values }
    var count: Int { byToken.count }

    /// The running apps, for the router.
    var all: [any ContinuingApp] { Array(byToken.values) }

    /// A document being brought for a fetch: each app whose FETCH waits
    /// for that activity hears BRINGING.
    func bringing(_ progress: DocumentProgress) {
        for session in byToken.values { session.bringing(progress) }
    }
}
