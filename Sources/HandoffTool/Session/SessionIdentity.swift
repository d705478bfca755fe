// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffModel

/// Who `handoff session` is to Handoff: the app `--app` names, as the
/// agent would know it (docs/agent.md §5): its declared types from
/// `--type`, else from the installed desktop entry (or Handoff manifest)
/// of that bundle id; its team from `--team`, else from that entry, else
/// the tool's.
enum SessionIdentity {
    static func manifest(_ arguments: ParsedArguments,
                         installed: () -> InstalledApp? ) throws(UsageError) -> Manifest {
        guard let bundle = arguments.value("--app") else { throw arguments.usage("--app BUNDLE-ID is required") }
        var types = arguments.values("--type")
        var team = arguments.value("--team")
        if types.isEmpty || team == nil, let app = installed() {
            if types.isEmpty { types = app.activityTypes }
            if team == nil { team = app.teamIdentifier }
        }
        guard !types.isEmpty else {
            throw arguments.usage("no --type given, and no installed desktop entry declares types for \(bundle) "
                                  + "(X-Handoff-ActivityTypes, docs/agent.md §5)")
        }
        do {
            return try Manifest(bundleIdentifier: bundle, teamIdentifier: team ?? ToolIdentity.defaultTeam, activityTypes: types)
        } catch {
            throw arguments.usage(error.message)
        }
    }

    /// The installed app of `bundle`, scanned now (the agent's own scan).
    static func installedApp(_ bundle: String?) -> InstalledApp? {
        guard let bundle else { return nil }
        return InstalledApps().app(bundleIdentifier: bundle)
    }
}
