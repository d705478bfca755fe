// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffContinuity
@testable import HandoffRelay

/// Two `RelayPipe`s joined by a broker played in memory: what one side's
/// `poll` returns is queued for the other, encoded and decoded as on the
/// wire, and the test decides what is lost, doubled or reordered. Time is
/// explicit (`now`); nothing waits.
struct RelayPipeHarness {
    var opener: RelayPipe
    var acceptor: RelayPipe
    /// Frames in flight to each side.
    var toAcceptor: [RelayPipeFrame] = []
    var toOpener: [RelayPipeFrame] = []
    var now = 0.0
    /// Everything each side published, in order.
    var publishedByOpener: [RelayPipeFrame] = []
    var publishedByAcceptor: [RelayPipeFrame] = []

    static let pipeID = RelayPipeID(bytes: Array(0xC0...0xCF))!

    init(limits: RelayPipeLimits = RelayPipeLimits()) {
        opener = RelayPipe(id: Self.pipeID, role: .opener, limits: limits, now: 0)
        acceptor = RelayPipe(id: Self.pipeID, role: .acceptor, limits: limits, now: 0)
    }

    /// Both sides publish what is due now.
    mutating func pollBoth() {
        let a = opener.poll(now: now).map(Self.wire)
        publishedByOpener += a
        toAcceptor += a
        let b = acceptor.poll(now: now).map(Self.wire)
        publishedByAcceptor += b
        toOpener += b
    }

    /// The frame through the codec, as the broker carries it.
    static func wire(_ frame: RelayPipeFrame) -> RelayPipeFrame {
        try! RelayPipeFrame.decode(frame.encoded(), expectedPipe: pipeID).get()
    }

    /// Delivers what is in flight (both ways), returning the receipts.
    @discardableResult
    mutating func deliver() -> (atAcceptor: [RelayPipe.Receipt], atOpener: [RelayPipe.Receipt]) {
        let a = toAcceptor.map { acceptor.receive($0, now: now) }
        toAcceptor = []
        let b = toOpener.map { opener.receive($0, now: now) }
        toOpener = []
        return (a, b)
    }

    /// Polls and delivers until nothing moves (bounded).
    mutating func settle(rounds: Int = 200) {
        for _ in 0..<rounds {
            pollBoth()
            if toAcceptor.isEmpty && toOpener.isEmpty { return }
            deliver()
        }
    }

    /// Moves `bytes` from the opener to the acceptor's reader, reading as it
    /// goes; returns what arrived. Bounded rounds.
    mutating func transfer(_ bytes: [UInt8], rounds: Int = 10_000) -> [UInt8] {
        var offset = 0, received: [UInt8] = []
        for _ in 0..<rounds where received.count < bytes.count {
            offset += opener.write(bytes[offset...])
            pollBoth()
            deliver()
            received += acceptor.read(max: 1 << 20)
        }
        return received
    }
}
