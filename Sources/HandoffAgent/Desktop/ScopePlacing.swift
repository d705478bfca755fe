// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Moves a program the launcher started into a systemd scope of its own
/// (docs/agent.md §5): the agent's part that talks to the user's systemd
/// manager (`SystemdScopes`, Sources/HandoffAgent/DesktopBus). Without it the
/// program stays in the agent's cgroup.
///
/// A protocol so the launcher is tested without a bus and built (for the
/// fuzz target) without sd-bus.
public protocol ScopePlacing {
    /// Asks for the scope; never throws: `completion` hears the unit's name
    /// or why there is none (no user manager on the bus is one reason), on
    /// the loop thread, possibly before this returns.
    func placeInScope(pid: Int32, desktopID: String, description: String,
                      completion: @escaping (Result<String, HandoffError>) -> Void)
}
