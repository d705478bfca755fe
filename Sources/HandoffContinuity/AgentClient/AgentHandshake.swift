// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// Opening a connection to the agent (docs/agent.md §3): connect, check the
/// agent's uid, send HELLO, wait for its WELCOME. Used for the first
/// connection (on the thread that starts continuity, which must know at
/// once whether the agent serves it) and for every reconnection (on the
/// client's reader thread).
enum AgentHandshake {
    /// HELLO's request id: the first of each connection's id space.
    static let helloID: UInt32 = 1

    /// A descriptor connected to the agent, past its WELCOME (non-blocking,
    /// close-on-exec; the caller owns it), and the WELCOME.
    /// - Parameters:
    ///   - accountID: the account the app uses; a WELCOME naming another
    ///     is refused (nil: any).
    ///   - cancel: signalled to interrupt the wait for WELCOME, which
    ///     ends when `stopped()` then holds (the client's `detach`).
    /// - Throws: `.connectionUnavailable` (no agent there, no WELCOME in
    ///   time, a broken answer), `.permission` (the socket or its directory
    ///   is a link or another user's, or the agent runs as another user),
    ///   `.invalidState` (the agent serves another account), or the code of
    ///   the agent's ERROR answer.
    static func connect(path: String, hello: AgentHello, accountID: String?, timeout: Double,
                        cancel: WakePipe? = nil, stopped: () -> Bool = { false }) throws(HandoffError) -> (Int32, AgentWelcome) {
        try AgentSocketPath.checkBeforeConnecting(path)
        let deadline = monotonicSeconds() + timeout
        let fd = try LocalSocket.connect(to: path, timeout: timeout)
        do throws(HandoffError) {
            try LocalSocket.send(fd, try AgentFrame(.hello(hello), requestID: helloID).encoded(), timeout: timeout)
            let welcome = try awaitWelcome(fd, path: path, deadline: deadline, cancel: cancel, stopped: stopped)
            guard hello.revisions.contains(welcome.revision) else {
                throw HandoffError(.invalidState, "the agent at \(path) chose protocol revision \(welcome.revision), which this app "
                                   + "(revisions \(hello.revisions.lowerBound)...\(hello.revisions.upperBound)) does not speak")
            }
            if let accountID, welcome.accountID != accountID {
                throw HandoffError(.invalidState, "the agent at \(path) serves account \(welcome.accountID), "
                                   + "not this app's account \(accountID): join the agent's account (`handoff account`) "
                                   + "or choose HANDOFF_CONTINUITY_MODE_EMBEDDED")
            }
            return (fd, welcome)
        } catch {
            close(fd)
            throw error
        }
    }

    private static func awaitWelcome(_ fd: Int32, path: String, deadline: Double, cancel: WakePipe?,
                                     stopped: () -> Bool) throws(HandoffError) -> AgentWelcome {
        func broken(_ why: String) -> HandoffError {
            HandoffError(.connectionUnavailable, "the agent at \(path) did not welcome this app: \(why)")
        }
        while true {
            switch LocalSocket.receive(fd) {
            case .message(let bytes, let descriptors):
                descriptors.forEach { close($0) }
                guard descriptors.isEmpty else { throw broken("a descriptor came with its answer") }
                let frame: AgentFrame
                do { frame = try AgentFrame(decoding: bytes, from: .agent) } catch { throw broken(error.message) }
                guard frame.requestID == helloID else { throw broken("it sent \(frame.message.kind) before WELCOME") }
                switch frame.message {
                case .welcome(let welcome): return welcome
                case .error(let error): throw HandoffError(error.code, "the agent at \(path) refused this app: \(error.message)")
                default: throw broken("it answered HELLO with \(frame.message.kind)")
                }
            case .wouldBlock:
                break
            case .closed:
                throw broken("it closed the connection")
            case .truncated:
                throw broken("its answer is larger than \(AgentFrame.maxSize) bytes")
            case .failed(let code):
                throw broken(String(cString: strerror(code)))
            }
            guard deadline > monotonicSeconds() else { throw broken("no WELCOME within the time allowed") }
            if wait(fd, for: Int16(POLLIN), until: Deadline(at: deadline), cancel: cancel?.fd ?? -1) == .cancelled {
                cancel?.drain()
                if stopped() { throw HandoffError(.connectionUnavailable, "continuity stopped while connecting to the agent") }
            }
        }
    }
}
