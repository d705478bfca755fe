// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: everything a pairing reads from the network. The input is
// tried as a pairing beacon (a beacon it accepts must re-encode to it),
// then as the bytes arriving on a pairing connection: through the real
// frame reader (PairingConnection, over a socket pair), each frame into
// PairingMessage (must re-encode to the frame) and into a joiner and a
// sponsor state machine of each method (session c0…cf and one-time code
// 4711-0828, as the seeds), which may refuse anything but never trap.
#if canImport(Glibc)
import Glibc
#endif
@testable import HandoffContinuity

let session: [UInt8] = Array(0xc0...0xcf)
let account = try! AccountKey(bytes: Array(0..<32))
let code = PairingMethod.code(try! OneTimeCode(typed: "4711-0828"))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    if let beacon = PairingBeacon.parse(input) {
        precondition(beacon.encoded() == input, "a beacon does not re-encode to its bytes")
    }
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else { return 0 }
    defer { close(fds[1]) }
    precondition(input.isEmpty || write(fds[1], input, input.count) == input.count, "short write to the socket pair")
    shutdown(fds[1], Int32(SHUT_WR))
    let connection = PairingConnection(fd: fds[0], peer: "fuzz")
    var joiners: [PairingJoinerMachine?] = [.comparison, code].map { PairingJoinerMachine(sessionID: session, deviceName: "joiner", method: $0) }
    var sponsors: [PairingSponsorMachine?] = [.comparison, code].map {
        var sponsor = PairingSponsorMachine(sessionID: session, accountKey: account, deviceName: "sponsor", method: $0)
        _ = sponsor.start()
        return sponsor
    }
    for _ in 0..<size {
        guard let frame = try? connection.readFrame() else { break }
        precondition(frame.length <= PairingLimits.maxFrameSize, "a frame over the limit was read")
        guard let message = try? PairingMessage(frame) else { continue }
        precondition(message.frame == frame, "a message does not re-encode to its frame")
        for i in joiners.indices {
            guard var j = joiners[i] else { continue }
            _ = j.isCommitForUs(frame)
            if let step = try? j.receive(frame) {
                if step.storeKey != nil { _ = j.keyStored() }
                joiners[i] = j
            } else {
                joiners[i] = nil
            }
        }
        for i in sponsors.indices {
            guard var s = sponsors[i] else { continue }
            sponsors[i] = (try? s.receive(frame)) != nil ? s : nil
        }
    }
    return 0
}
