// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// A connected app as continue routing sees it (`AgentSession`): what it
/// declared, whom its offers are gated for, and CONTINUE.
protocol ContinuingApp: AnyObject {
    /// Said HELLO and still open.
    var isRegistered: Bool { get }
    var isObserver: Bool { get }
    var manifest: Manifest { get }
    var audience: ActivityAudience { get }
    /// Smaller: connected earlier (the one connected longest is tried first).
    var connectionOrder: UInt64 { get }
    /// "app com.example.notes (pid 123)", for the log.
    var describe: String { get }
    /// CONTINUE `remote` (gated for this app); the token lets it raise its window.
    func continueActivity(_ remote: RemoteActivity, activationToken: String?)
}
