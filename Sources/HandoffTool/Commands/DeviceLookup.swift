// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// Finds the device a person names on the command line (`handoff settings
/// device DEVICE …`): a full id as given; else, among the devices the
/// agent hears now and those the settings already name, one whose name is
/// the word (any case) or whose id starts with it. None or several is an
/// error that lists what is known.
enum DeviceLookup {
    struct Known {
        var id: String
        var name: String?
    }

    /// The id, and the name when one is known.
    static func resolve(_ word: String, settings: HandoffSettings) throws(HandoffError) -> (id: String, name: String?) {
        var known = settings.devices.map { Known(id: $0.key, name: $0.value.name) }
        for heard in heardByAgent() {
            if let i = known.firstIndex(where: { $0.id == heard.id }) { known[i].name = heard.name } else { known.append(heard) }
        }
        let lower = word.lowercased()
        if HandoffSettings.isDeviceID(lower) {
            return (lower, known.first { $0.id == lower }?.name)
        }
        var matches = known.filter { $0.name?.lowercased() == lower }
        if matches.isEmpty, !lower.isEmpty, lower.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) {
            matches = known.filter { $0.id.hasPrefix(lower) }
        }
        let list = known.isEmpty ? "none is heard now (is the agent running, and the device offering something?)"
            : "known: " + known.map { k in k.name.map { "\($0) (\(k.id))" } ?? k.id }.sorted().joined(separator: ", ")
        switch matches.count {
        case 1: return (matches[0].id, matches[0].name)
        case 0: throw HandoffError(.notFound, "no device is named \"\(word)\" or has an id starting with it; \(list); or give its full id (32 hex digits, from `handoff devices`)")
        default: throw HandoffError(.invalidArgument, "\"\(word)\" names \(matches.count) devices: \(matches.map(\.id).joined(separator: ", ")); give more of the id")
        }
    }

    /// The other devices the agent hears now; none when no agent runs for
    /// this account (nothing is started for this: no engine, no network).
    private static func heardByAgent() -> [Known] {
        guard let profile = try? Profile.open(), let account = try? profile.existingAccount(),
              let queue = try? HostQueue() else { return [] }
        var choice = ContinuityModeChoice(mode: .agent, accountID: account.id)
        choice.observer = true
        let started = Result { () throws(HandoffError) in
            let manifest = try Manifest(bundleIdentifier: ToolIdentity.bundleIdentifier,
                                        teamIdentifier: ToolIdentity.defaultTeam, activityTypes: [])
            return try choice.start(manifest: manifest) { () throws(HandoffError) -> any ContinuityService in
                throw HandoffError(.connectionUnavailable, "no agent")
            }.service
        }
        guard case .success(let service) = started, let agent = service as? AgentClient,
              let manifest = try? Manifest(bundleIdentifier: ToolIdentity.bundleIdentifier,
                                           teamIdentifier: ToolIdentity.defaultTeam, activityTypes: []) else { return [] }
        // The client reads the agent's answers once attached; held here
        // (a service keeps its endpoint weakly).
        let observer = Observer(manifest: manifest) { _ in }
        agent.attach(observer)
        defer { agent.detach() }
        final class Answer: @unchecked Sendable {
            // @unchecked: set and read on the main thread only.
            var status: AgentStatus?
            var loop: MainLoop?
        }
        let answer = Answer()
        let loop = MainLoop([queue])
        answer.loop = loop
        agent.status { result in
            queue.post {
                answer.status = try? result.get()
                answer.loop?.stop()
            }
        }
        _ = loop.run(timeout: 5)
        withExtendedLifetime(observer) {}
        return answer.status?.remotes.map { Known(id: hexString($0.deviceID), name: $0.deviceName) } ?? []
    }
}

