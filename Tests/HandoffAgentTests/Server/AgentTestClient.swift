// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
@testable import HandoffAgent
import HandoffBase
import HandoffContinuity
import HandoffModel
import HandoffRuntime
import Testing

/// An app as the agent sees it, speaking the local protocol by hand: real
/// datagrams over a real SEQPACKET connection. What arrives while the test
/// waits for something else is kept, in order.
final class AgentTestClient {
    let fd: Int32
    private var inbox: [(frame: AgentFrame, descriptors: [Int32])] = []
    private var nextID: UInt32 = 0
    private(set) var closedByAgent = false
    /// Run between polls while waiting (dispatching the other device's app).
    var whileWaiting: (() -> Void)?

    init(_ path: String) throws {
        fd = try LocalSocket.connect(to: path, timeout: 10)
    }

    deinit {
        for item in inbox { item.descriptors.forEach { _ = close($0) } }
        close(fd)
    }

    func takeID() -> UInt32 {
        nextID += 1
        return nextID
    }

    func send(_ message: AgentMessage, requestID: UInt32 = 0) throws {
        try sendRaw(AgentFrame(message, requestID: requestID).encoded())
    }

    func sendRaw(_ bytes: [UInt8], passing descriptor: Int32? = nil) throws {
        try LocalSocket.send(fd, bytes, passing: descriptor, timeout: 10)
    }

    enum Incoming {
        case frame(AgentFrame, [Int32])
        case closed
        case nothing
    }

    /// One datagram from the agent, waiting at most `seconds`.
    func receiveOne(seconds: Double) -> Incoming {
        let end = clock() + seconds
        while true {
            switch LocalSocket.receive(fd) {
            case .message(let bytes, let descriptors):
                guard let frame = try? AgentFrame(decoding: bytes, from: .agent) else {
                    Issue.record("the agent sent a datagram that does not decode: \(bytes.prefix(16))")
                    descriptors.forEach { _ = close($0) }
                    return .closed
                }
                return .frame(frame, descriptors)
            case .closed, .failed, .truncated:
                closedByAgent = true
                return .closed
            case .wouldBlock:
                let left = end - clock()
                guard left > 0 else { return .nothing }
                if let whileWaiting {
                    whileWaiting()
                    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    _ = poll(&p, 1, 2)
                } else {
                    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    _ = poll(&p, 1, Int32(min(left, 1) * 1000) + 1)
                }
            }
        }
    }

    /// The first message (kept or new) that `matches`, waiting at most
    /// `seconds`; others are kept for later. Nil when the time ran out or
    /// the agent closed the connection.
    func next(within seconds: Double = 30, where matches: (AgentFrame) -> Bool) -> (frame: AgentFrame, descriptors: [Int32])? {
        if let i = inbox.firstIndex(where: { matches($0.frame) }) { return inbox.remove(at: i) }
        let end = clock() + seconds
        while clock() < end {
            switch receiveOne(seconds: end - clock()) {
            case .frame(let frame, let descriptors):
                if matches(frame) { return (frame, descriptors) }
                inbox.append((frame, descriptors))
            case .closed: return nil
            case .nothing: break
            }
        }
        return nil
    }

    /// Sends a request and waits for its reply.
    func request(_ message: AgentMessage, within seconds: Double = 30) throws -> (frame: AgentFrame, descriptors: [Int32])? {
        let id = takeID()
        try send(message, requestID: id)
        return next(within: seconds) { $0.requestID == id && AgentFrame.isReply($0.message) }
    }

    /// HELLO, and the WELCOME it gets.
    func hello(_ manifest: Manifest, observer: Bool = false) throws -> AgentWelcome? {
        guard case .welcome(let w)? = try request(.hello(AgentHello(manifest: manifest, pid: getpid(), observer: observer)))?.frame.message
        else { return nil }
        return w
    }

    func status() throws -> AgentStatus? {
        guard case .status(let s)? = try request(.statusRequest)?.frame.message else { return nil }
        return s
    }

    /// What REMOTE said is offered now, from the messages received so far
    /// and those that come within `seconds`, until `ready` holds.
    private(set) var offered: [ActivityID: RemoteActivity] = [:]
    func waitOffered(within seconds: Double = 30, until ready: ([ActivityID: RemoteActivity]) -> Bool) -> Bool {
        let end = clock() + seconds
        while true {
            while let (frame, _) = next(within: 0, where: { if case .remote = $0.message { true } else { false } }) {
                apply(frame)
            }
            if ready(offered) { return true }
            guard clock() < end, let (frame, _) = next(within: end - clock(), where: {
                if case .remote = $0.message { true } else { false }
            }) else { return ready(offered) }
            apply(frame)
        }
    }

    private func apply(_ frame: AgentFrame) {
        guard case .remote(let change) = frame.message else { return }
        switch change {
        case .available(let r), .updated(let r): offered[r.activityID] = r
        case .withdrawn(let r): offered[r.activityID] = nil
        }
    }

    /// Reads until the agent closes the connection (within `seconds`).
    func waitUntilClosed(within seconds: Double = 30) -> Bool {
        let end = clock() + seconds
        while clock() < end {
            switch receiveOne(seconds: end - clock()) {
            case .closed: return true
            case .frame(_, let descriptors): descriptors.forEach { _ = close($0) }
            case .nothing: break
            }
        }
        return false
    }

    private func clock() -> Double { monotonicSeconds() }
}
