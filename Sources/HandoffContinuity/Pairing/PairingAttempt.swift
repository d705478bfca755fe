// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// What the two pairing state machines share, so one loop drives both.
protocol PairingMachine {
    mutating func receive(_ frame: Frame) throws(HandoffError) -> PairingStep
    mutating func answer(_ yes: Bool) throws(HandoffError) -> PairingStep
    var peerEnded: Bool { get }
    /// Joiner only: the key of the last step is stored.
    mutating func keyStored() -> PairingStep
}

extension PairingSponsorMachine: PairingMachine {
    func keyStored() -> PairingStep { preconditionFailure("a sponsor stores no key") }
}
extension PairingJoinerMachine: PairingMachine {}

/// The rest of an attempt once the keys are agreed: asks the person to
/// compare `code` (none for a one-time-code run), reads the other device,
/// sends what the machine says, until success or failure. Every failure
/// sends REJECT unless the other side ended first.
enum PairingAttempt {
    static func run<M: PairingMachine>(
        _ machine: inout M, connection: PairingConnection, code: ComparisonCode?, events: PairingEvents,
        windowEnd: Deadline, limits: PairingLimits, cancelFD: Int32,
        store: (AccountKey) throws(HandoffError) -> Void
    ) throws(HandoffError) -> String {
        var prompt: PairingPrompt? = code.map(events.compare)
        var deadline = windowEnd
        do throws(HandoffError) {
            while true {
                // An fd-less prompt is asked at once.
                if let current = prompt, current.fd < 0 {
                    prompt = nil
                    if let yes = current.read() {
                        if let done = try apply(try machine.answer(yes), &deadline, connection, limits, store, &machine) { return done }
                    }
                }
                if let frame = try connection.readFrame() {
                    if let done = try apply(try machine.receive(frame), &deadline, connection, limits, store, &machine) { return done }
                    continue
                }
                guard let wait = deadline.pollTimeout else {
                    throw HandoffError(.timedOut, "no answer in time (from the person or the other device): pairing stopped, nothing was exchanged")
                }
                var fds = [pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: cancelFD, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: prompt?.fd ?? -1, events: Int16(POLLIN), revents: 0)]
                _ = poll(&fds, 3, wait)
                if fds[1].revents != 0 { throw PairingConnection.cancelled }
                if fds[2].revents != 0, let current = prompt, let yes = current.read() {
                    prompt = nil
                    if let done = try apply(try machine.answer(yes), &deadline, connection, limits, store, &machine) { return done }
                }
            }
        } catch {
            if !machine.peerEnded { connection.sendReject() }
            throw error
        }
    }

    /// Sends the step's frames, stores a key; the peer's name once paired.
    private static func apply<M: PairingMachine>(
        _ step: PairingStep, _ deadline: inout Deadline, _ connection: PairingConnection, _ limits: PairingLimits,
        _ store: (AccountKey) throws(HandoffError) -> Void, _ machine: inout M
    ) throws(HandoffError) -> String? {
        var step = step
        if let key = step.storeKey {
            try store(key)
            step = machine.keyStored()
        }
        for frame in step.send {
            try connection.send(frame, until: Deadline(after: limits.stepTimeout))
            if frame.type == PairingMessage.keyType {
                deadline = Deadline(after: min(limits.doneTimeout, max(0, deadline.end - monotonicSeconds())))
            }
        }
        return step.paired
    }
}
