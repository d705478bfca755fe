// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: two RelayPipes joined by a broker that loses, doubles and
// reorders frames as the input says, with frames forged from the input
// mixed in (PROTOCOL.md §11 "Pipes"). Each input byte is an operation.
// Checked: nothing traps; what the acceptor reads is always a prefix of
// what the opener wrote (while nothing was forged: a forged DATA may
// change bytes, which TLS then refuses, but never crash the pipe); a side
// never holds more than its window; deadlines exist until a pipe ends.
@testable import HandoffContinuity
@testable import HandoffRelay

let pipeID = RelayPipeID(bytes: Array(0xC0...0xCF))!

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeBufferPointer(start: data, count: size)
    var limits = RelayPipeLimits()
    limits.window = 4096  // small, so windows fill within short inputs
    limits.initialPeerWindow = 2048
    var opener = RelayPipe(id: pipeID, role: .opener, limits: limits, now: 0)
    var acceptor = RelayPipe(id: pipeID, role: .acceptor, limits: limits, now: 0)
    var toAcceptor: [RelayPipeFrame] = [], toOpener: [RelayPipeFrame] = []
    var written: [UInt8] = [], read: [UInt8] = [], counter: UInt8 = 0
    var now = 0.0, forged = false
    var i = 0
    func next() -> UInt8 {
        defer { i += 1 }
        return i < input.count ? input[i] : 0
    }
    while i < input.count {
        let op = next()
        switch op % 10 {
        case 0, 1:  // the opener writes
            let n = Int(next()) * 40
            var bytes: [UInt8] = []
            for _ in 0..<n { counter &+= 1; bytes.append(counter) }
            let taken = opener.write(bytes)
            written += bytes.prefix(taken)
        case 2:  // both poll
            toAcceptor += opener.poll(now: now)
            toOpener += acceptor.poll(now: now)
        case 3:  // deliver to the acceptor: op's high bits pick drop/dup/reorder
            if !toAcceptor.isEmpty {
                let pick = Int(next()) % toAcceptor.count
                let frame = toAcceptor.remove(at: pick)
                let wire = try! RelayPipeFrame.decode(frame.encoded(), expectedPipe: pipeID).get()
                if op & 0x10 == 0 { _ = acceptor.receive(wire, now: now) }
                if op & 0x20 != 0 { _ = acceptor.receive(wire, now: now) }
            }
        case 4:
            if !toOpener.isEmpty {
                let frame = toOpener.remove(at: Int(next()) % toOpener.count)
                if op & 0x10 == 0 { _ = opener.receive(frame, now: now) }
            }
        case 5:
            now += Double(next()) / 16
        case 6:
            read += acceptor.read(max: Int(next()) * 64)
        case 7:
            if op & 0x10 == 0 { opener.close() } else { acceptor.close() }
        case 8:  // a forged frame from the input's next 40 bytes
            var bytes: [UInt8] = []
            for _ in 0..<40 { bytes.append(next()) }
            let length = Int(bytes[0] % 9)
            var message = Array(bytes[1..<33]) + Array(bytes[33..<33 + min(length, 7)])
            message.replaceSubrange(4..<20, with: pipeID.bytes)
            if case .success(let frame) = RelayPipeFrame.decode(message, expectedPipe: pipeID) {
                forged = true
                _ = (op & 0x10 == 0) ? acceptor.receive(frame, now: now) : opener.receive(frame, now: now)
            }
        default:
            if op & 0x30 == 0x30 { opener.reset(.closed) }
        }
        precondition(acceptor.readable <= limits.window && opener.readable <= limits.window, "a side holds more than its window")
        precondition(acceptor.isEnded == (acceptor.nextDeadline == nil), "a live pipe without a deadline, or an ended one with one")
        if !forged {
            precondition(read.count <= written.count && read.elementsEqual(written.prefix(read.count)),
                         "the acceptor read bytes the opener did not write, or out of order")
        }
    }
    return 0
}
