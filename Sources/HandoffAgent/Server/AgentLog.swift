// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// One notable thing the agent did (a connection accepted or refused, an
/// app registered or gone, a launch, an error): the agent logs one line
/// for each. `fields` carry the same facts for machines (`--json`).
public struct AgentLogEvent: Sendable {
    public enum Value: Sendable, Equatable {
        case string(String)
        case int(Int64)
        case bool(Bool)
    }

    /// A short fixed word: "accepted", "refused", "hello", "closed", ...
    public var name: String
    public var fields: [(key: String, value: Value)]
    /// The line a person reads.
    public var text: String

    public init(_ name: String, _ text: String, _ fields: KeyValuePairs<String, Value> = [:]) {
        self.name = name
        self.text = text
        self.fields = fields.map { ($0.key, $0.value) }
    }

    public func field(_ key: String) -> Value? { fields.first { $0.key == key }?.value }
}

/// Where the agent's events go. Called on the agent's threads (mostly its
/// loop): a sink must be quick and must not call back into the agent.
public typealias AgentLogSink = @Sendable (AgentLogEvent) -> Void
