// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: AgentFrame(decoding:from:), one datagram of the local
// protocol (docs/agent.md §3). Byte 0's low bit is the sender (0 the app,
// 1 the agent), the rest the datagram.
//
// A refusal is .unknownType only for a sound header naming a type this
// side does not know (so it can be answered), else .malformed. A message
// it accepts must re-encode (a body that would not fit in a datagram is
// refused, so encoded() cannot throw for it) and normalise in one step:
// m2 = decode(encode(m1)) and m3 = decode(encode(m2)) are equal, byte for
// byte, with the same request id.
@testable import HandoffContinuity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 1 else { return 0 }
    let sender: AgentMessage.Sender = data[0] & 1 == 0 ? .app : .agent
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let m1: AgentFrame
    do {
        m1 = try AgentFrame(decoding: bytes, from: sender)
    } catch {
        if case .unknownType(let type, let requestID) = error {
            precondition(bytes.count >= AgentFrame.headerSize && bytes.count <= AgentFrame.maxSize
                         && bytes[0] == AgentFrame.version && bytes[2] == 0 && bytes[3] == 0,
                         "unknownType for a broken header")
            precondition(type == bytes[1] && AgentMessage.Kind(rawValue: type) == nil, "unknownType for a known type")
            precondition(requestID == bytes[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }, "unknownType lost the request id")
        }
        return 0
    }
    precondition(AgentMessage.allowed(m1.message.kind, from: sender), "a message the sender may not send was accepted")
    precondition(m1.message.kind.rawValue == bytes[1], "the type changed")
    let e1 = reencode(m1)
    precondition(e1.prefix(AgentFrame.headerSize).elementsEqual(bytes.prefix(AgentFrame.headerSize)), "the header changed")
    let m2 = redecode(e1, from: sender)
    let e2 = reencode(m2)
    let m3 = redecode(e2, from: sender)
    precondition(m2 == m3, "decoding is not idempotent: \(m2) became \(m3)")
    precondition(m2.requestID == m1.requestID && m3.requestID == m1.requestID, "the request id changed")
    precondition(reencode(m3) == e2, "m2 and m3 are equal but encode differently")
    return 0
}

func reencode(_ frame: AgentFrame) -> [UInt8] {
    do {
        return try frame.encoded()
    } catch {
        preconditionFailure("an accepted message does not re-encode: \(error)")
    }
}

func redecode(_ bytes: [UInt8], from sender: AgentMessage.Sender) -> AgentFrame {
    do {
        return try AgentFrame(decoding: bytes, from: sender)
    } catch {
        preconditionFailure("a re-encoded message is refused: \(error)")
    }
}
