// SPDX-License-Identifier: MIT OR Apache-2.0

extension AgentConnection.CloseReason {
    /// The log's word and text for a connection closed for this reason
    /// (event `closed`, docs/agent.md §3).
    func logged(_ limits: AgentLimits) -> (word: String, text: String) {
        switch self {
        case .peer: ("peer", "disconnected")
        case .malformed(let why): ("malformed", "closed: \(why)")
        case .noHello(let why): ("no-hello", "closed: \(why)")
        case .helloTimeout: ("hello-timeout", "closed: no HELLO within \(limits.helloTimeout) s")
        case .queueFull: ("queue-full", "closed: \(limits.maxQueuedMessages) messages queued it did not read")
        case .stopping: ("stopping", "closed: the agent stops")
        case .refused: ("refused", "closed after an error")
        }
    }
}

extension AgentCounters {
    /// Counts a connection closed for `reason` (the agent's own closes,
    /// stopping and after an error, are not counted).
    mutating func count(closed reason: AgentConnection.CloseReason) {
        switch reason {
        case .peer: closedByPeer += 1
        case .malformed: closedMalformed += 1
        case .noHello: closedNoHello += 1
        case .helloTimeout: closedHelloTimeout += 1
        case .queueFull: closedQueueFull += 1
        case .stopping, .refused: break
        }
    }
}
