// Fuzz target: everything a pairing reads from the network. The input is
// tried as a pairing beacon (a beacon it accepts must re-encode to it),
// then as the bytes arriving on a pairing connection: through the real
// frame reader (PairingConnection, over a socket pair), each frame into
// PairingMessage (must re-encode to the frame) and into a joiner and a
// sponsor state machine (session c0…cf, as the seeds), which may refuse
// anything but never trap.
#if canImport(Glibc)
import Glibc
#endif
@testable import HandoffContinuity

let session: [UInt8] = Array(0xc0...0xcf)
let account = try! AccountKey(bytes: Array(0..<32))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    if let beacon = PairingBeacon.parse(input) {
        precondition(beacon.encoded() == input, "a beacon does not re-encode to its bytes")
    }
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { return 0 }
    defer { close(fds[1]) }
    precondition(input.isEmpty || write(fds[1], input, input.count) == input.count, "short write to the socket pair")
    shutdown(fds[1], Int32(SHUT_WR))
    let connection = PairingConnection(fd: fds[0], peer: "fuzz")
    var joiner: PairingJoinerMachine? = PairingJoinerMachine(sessionID: session, deviceName: "joiner")
    var sponsor: PairingSponsorMachine? = PairingSponsorMachine(sessionID: session, accountKey: account, deviceName: "sponsor")
    _ = sponsor!.start()
    for _ in 0..<size {
        guard let frame = try? connection.readFrame() else { break }
        precondition(frame.length <= PairingLimits.maxFrameSize, "a frame over the limit was read")
        guard let message = try? PairingMessage(frame) else { continue }
        precondition(message.frame == frame, "a message does not re-encode to its frame")
        if var j = joiner {
            if let step = try? j.receive(frame) {
                if step.storeKey != nil { _ = j.keyStored() }
                joiner = j
            } else {
                joiner = nil
            }
        }
        if var s = sponsor {
            sponsor = (try? s.receive(frame)) != nil ? s : nil
        }
    }
    return 0
}
