// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: TailnetStatus(response:), tailscaled's LocalAPI answer as
// the tailnet peer source reads it (docs/PROTOCOL.md "Peer sources"): HTTP
// framing (status line, headers, Content-Length or chunks) and the JSON of
// ipnstate.Status. Any input gives a status or a thrown error, never a
// trap; what it keeps stays within its bounds.
import HandoffContinuity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let response = try? HTTPResponse(bytes: bytes) {
        precondition(response.body.count <= bytes.count, "the body is larger than the input")
        precondition((0...999).contains(response.status))
    }
    guard let status = try? TailnetStatus(response: bytes) else { return 0 }
    precondition(status.peers.count <= TailnetStatus.maxPeers)
    for peer in status.peers {
        precondition(!peer.addresses.isEmpty && peer.addresses.count <= TailnetStatus.maxAddressesPerPeer)
    }
    precondition(status.backendState == "Running" || status.peers.isEmpty)
    return 0
}
