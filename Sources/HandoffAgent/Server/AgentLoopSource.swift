// SPDX-License-Identifier: MIT OR Apache-2.0

/// A descriptor the agent's loop watches besides its own (the session
/// bus): polled for `pollEvents`, and `process()` runs when it is ready or
/// `timeoutMilliseconds` (−1: none) has passed. Loop thread only.
public protocol AgentLoopSource: AnyObject {
    var fd: Int32 { get }
    var pollEvents: Int16 { get }
    var timeoutMilliseconds: Int32 { get }
    func process()
    /// The loop stops: last words (close what was shown), then let go.
    func loopWillStop()
}

extension AgentLoopSource {
    public func loopWillStop() {}
}
