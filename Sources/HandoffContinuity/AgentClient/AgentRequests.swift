// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import HandoffRuntime

/// The requests of one agent connection that wait for an answer, both ways
/// (docs/agent.md §3 "Requests and replies"): the app's FETCH and
/// OPEN_STREAM waiting for the agent, and the agent's PROVIDE and
/// ACCEPT_STREAM waiting for the app's main thread. Each has a deadline;
/// each side holds at most `limit`. Not thread-safe: the client locks.
struct AgentRequests {
    /// Requests in flight per direction (docs/agent.md §3 "Bounds").
    static let limit = 16
    /// Ids of the app's requests that timed out, remembered so that the
    /// agent's late answer is dropped rather than taken for a reply to
    /// nothing (which would close the connection).
    static let givenUpLimit = 64

    /// An app request waiting for the agent.
    enum Outgoing {
        /// FETCH of this remote activity: BRINGING for it moves the deadline.
        case fetch(ActivityID, @Sendable (Result<[UInt8], HandoffError>) -> Void)
        case openStream(@Sendable (Result<ContinuationStream, HandoffError>) -> Void)
        case status(@Sendable (Result<AgentStatus, HandoffError>) -> Void)
        /// A request answered OK or ERROR (FORGET).
        case ok(@Sendable (Result<Void, HandoffError>) -> Void)
        /// GRANT: the path the agent had the document portal give.
        case path(@Sendable (Result<[UInt8], HandoffError>) -> Void)

        /// Runs the completion with `error` (streams get it too).
        func fail(_ error: HandoffError) {
            switch self {
            case .fetch(_, let completion): completion(.failure(error))
            case .openStream(let completion): completion(.failure(error))
            case .status(let completion): completion(.failure(error))
            case .ok(let completion): completion(.failure(error))
            case .path(let completion): completion(.failure(error))
            }
        }
    }

    /// An agent request waiting for the app: answered by the app, or by the
    /// client with 4610 at its deadline. The stream of an ACCEPT_STREAM is
    /// closed when the app did not take it in time.
    struct Incoming {
        let deadline: Double
        let stream: ContinuationStream?
    }

    private(set) var outgoing: [UInt32: (request: Outgoing, deadline: Double)] = [:]
    private(set) var incoming: [UInt32: Incoming] = [:]
    private var givenUp: [UInt32] = []
    private var lastID = AgentHandshake.helloID

    /// Registers an app request; nil when `limit` are in flight already.
    mutating func add(_ request: Outgoing, deadline: Double) -> UInt32? {
        guard outgoing.count < Self.limit else { return nil }
        repeat {
            lastID = lastID == UInt32.max ? AgentHandshake.helloID + 1 : lastID + 1
        } while outgoing[lastID] != nil || givenUp.contains(lastID)
        outgoing[lastID] = (request, deadline)
        return lastID
    }

    /// A document of `activityID` is being brought along (BRINGING): its
    /// FETCHes wait until `deadline` from now on, if that is later.
    /// Returns whether one waits.
    mutating func extendFetches(of activityID: ActivityID, to deadline: Double) -> Bool {
        var found = false
        for (id, entry) in outgoing {
            guard case .fetch(let fetched, _) = entry.request, fetched == activityID else { continue }
            found = true
            if entry.deadline < deadline { outgoing[id] = (entry.request, deadline) }
        }
        return found
    }

    /// What an answer from the agent with `id` is for.
    enum Match {
        case request(Outgoing)
        /// A request the app gave up on: drop the answer.
        case late
        /// No request of the app's has this id: a protocol error.
        case none
    }

    mutating func take(_ id: UInt32) -> Match {
        if let entry = outgoing.removeValue(forKey: id) { return .request(entry.request) }
        if let i = givenUp.firstIndex(of: id) {
            givenUp.remove(at: i)
            return .late
        }
        return .none
    }

    /// Registers an agent request; false when `limit` wait already or the
    /// id is one that still waits (a protocol error the caller tells apart
    /// with `isWaiting`).
    mutating func admit(_ id: UInt32, deadline: Double, stream: ContinuationStream? = nil) -> Bool {
        guard incoming[id] == nil, incoming.count < Self.limit else { return false }
        incoming[id] = Incoming(deadline: deadline, stream: stream)
        return true
    }

    func isWaiting(_ id: UInt32) -> Bool { incoming[id] != nil }

    /// The app answers the agent's request `id`: true when it still waited.
    mutating func answer(_ id: UInt32) -> Bool { incoming.removeValue(forKey: id) != nil }

    /// The soonest deadline, if anything waits.
    var nextDeadline: Double? {
        (outgoing.values.map(\.deadline) + incoming.values.map(\.deadline)).min()
    }

    /// Takes what is due at `now`: app requests (to fail with 4610, their
    /// ids remembered as given up) and agent requests (to answer 4610).
    mutating func expire(now: Double) -> (outgoing: [Outgoing], incoming: [(UInt32, Incoming)]) {
        let dueOut = outgoing.filter { $0.value.deadline <= now }
        for id in dueOut.keys.sorted() {
            outgoing[id] = nil
            givenUp.append(id)
        }
        if givenUp.count > Self.givenUpLimit { givenUp.removeFirst(givenUp.count - Self.givenUpLimit) }
        let dueIn = incoming.filter { $0.value.deadline <= now }.sorted { $0.key < $1.key }
        dueIn.forEach { incoming[$0.key] = nil }
        return (dueOut.sorted { $0.key < $1.key }.map(\.value.request), dueIn.map { ($0.key, $0.value) })
    }

    /// Empties the table (the connection ended): the app's requests to
    /// fail, the agent's streams to close.
    mutating func removeAll() -> (outgoing: [Outgoing], streams: [ContinuationStream]) {
        defer { self = AgentRequests() }
        return (outgoing.sorted { $0.key < $1.key }.map(\.value.request), incoming.values.compactMap(\.stream))
    }
}
