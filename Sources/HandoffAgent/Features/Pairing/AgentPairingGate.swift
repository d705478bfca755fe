// SPDX-License-Identifier: MIT OR Apache-2.0
/// When the agent may start a pairing run and when it may ask the person
/// (docs/agent.md §9): one run at a time, runs started at most one a
/// `runSpacing`, and a prompt at most once a `promptSpacing` per source
/// address (beacons from an address prompted within that time are not
/// even heard) and at most `promptBurst` prompts then one a
/// `promptSpacing` overall. Not thread-safe: the owner locks.
struct AgentPairingGate {
    static let runSpacing = 1.0
    static let promptSpacing = 30.0
    static let promptBurst = 2.0
    /// Addresses remembered; the oldest is forgotten first.
    static let maxSources = 64

    private var lastPrompt: [String: Double] = [:]
    private var lastRun = -Double.infinity
    private var promptTokens = promptBurst
    private var tokensAt: Double

    init(now: Double) { tokensAt = now }

    /// Whether beacons from `host` are heard now.
    func hears(_ host: String, now: Double) -> Bool {
        lastPrompt[host].map { now - $0 >= Self.promptSpacing } ?? true
    }

    /// Whether a run may start now (it is then counted as started).
    mutating func startRun(now: Double) -> Bool {
        refill(now)
        guard now - lastRun >= Self.runSpacing, promptTokens >= 1 else { return false }
        lastRun = now
        return true
    }

    /// Whether the person may be asked about `host` now (counted when true).
    mutating func prompt(_ host: String, now: Double) -> Bool {
        refill(now)
        guard hears(host, now: now), promptTokens >= 1 else { return false }
        promptTokens -= 1
        if lastPrompt[host] == nil, lastPrompt.count >= Self.maxSources,
           let oldest = lastPrompt.min(by: { $0.value < $1.value })?.key {
            lastPrompt[oldest] = nil
        }
        lastPrompt[host] = now
        return true
    }

    private mutating func refill(_ now: Double) {
        promptTokens = min(Self.promptBurst, promptTokens + max(0, now - tokensAt) / Self.promptSpacing)
        tokensAt = now
    }
}
