// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Who the tool is to Handoff. An app's manifest names its bundle, its team
/// and the types it continues; the tool is an app of its own:
///
/// - bundle identifier `org.libhandoff.handoff`;
/// - team `HANDOFFCLI`, or the one `--team` names (to continue, or to
///   publish as, another team's app: Handoff hands activities only to apps
///   of the sender's team);
/// - declared types: only the type at hand (`publish --type`, or the type
///   of the activity `continue` continues). `nearby` needs none: it lists
///   every activity of the account, whatever its team and type.
enum ToolIdentity {
    static let bundleIdentifier = "org.libhandoff.handoff"
    static let defaultTeam = "HANDOFFCLI"

    static let teamOption = OptionSpec.value(
        "--team", "TEAM", "team identifier the tool acts as (default \(defaultTeam)); continue only works within one team")

    /// The team the command acts as.
    static func team(_ arguments: ParsedArguments) -> String {
        arguments.value("--team") ?? defaultTeam
    }

    /// The manifest of the tool acting as `team` and declaring `types`.
    static func manifest(team: String, types: [String], _ arguments: ParsedArguments) throws(UsageError) -> Manifest {
        do {
            return try Manifest(bundleIdentifier: bundleIdentifier, teamIdentifier: team, activityTypes: types)
        } catch {
            throw arguments.usage(error.message)
        }
    }
}
