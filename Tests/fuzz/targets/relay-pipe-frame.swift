// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: RelayPipeFrame.decode, a message anyone allowed to publish
// on the broker may put under a pipe topic (PROTOCOL.md §11 "Pipes").
// Byte 0 picks whether the topic's pipe ID is checked (and which); the
// rest is the message. A frame accepted must re-encode to exactly the
// message, and never be larger than the limit. The message then goes to a
// device's pipe table (RelayPipeTable) as it would from the broker: it may
// open a pipe or be dropped, never anything else. A dropped message leaves
// the table without pipes; the only answer to one is PROTOCOL.md §11's
// RESET to a frame of a pipe the table does not know (not an OPEN, not a
// RESET): reason 1, seq 0, ack = the frame's seq, window 0, on its pipe.
@testable import HandoffContinuity
@testable import HandoffRelay

let topicPipe = RelayPipeID(bytes: Array(0xC0...0xCF))!
let account = try! AccountKey(bytes: Array(0..<32))
let me: [UInt8] = Array(0xB0...0xBF)
let topics = RelayTopics(accountKey: account)
let topic = RelayTopic.pipe(to: topics.deviceTag(me), from: topics.deviceTag(Array(0xA0...0xAF)), pipe: topicPipe)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 1 else { return 0 }
    let message = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let expected: RelayPipeID? = data[0] & 1 == 0 ? nil : topicPipe
    switch RelayPipeFrame.decode(message, expectedPipe: expected) {
    case .success(let frame):
        precondition(frame.encoded() == message, "a frame does not re-encode to its message")
        precondition(message.count <= RelayPipeFrame.maxMessageSize, "an oversized frame was accepted")
        precondition(expected == nil || frame.pipe == topicPipe, "another pipe's frame was accepted on this topic")
        if frame.kind == .reset { precondition(frame.resetReason != nil, "a RESET without a reason") }
    case .failure(let reason):
        precondition(reason == .malformed || reason == .oversized, "an unexpected refusal: \(reason)")
        precondition(reason != .oversized || message.count > RelayPipeFrame.maxMessageSize, "a message within the limit was called oversized")
    }
    var table = RelayPipeTable(account: account, ownDeviceID: me, now: 0)
    switch table.receive(message, topic: topic, now: 0) {
    case .accepted(let key):
        precondition(table.pipes[key] != nil, "an accepted pipe is not in the table")
        precondition(table.poll(now: 0).allSatisfy { $0.0 == key }, "frames for a pipe never opened")
    case .dropped(let reason):
        precondition(table.pipes.isEmpty, "a dropped message opened a pipe")
        let answers = table.poll(now: 0)
        precondition(table.pipes.isEmpty && table.takeForgotten().isEmpty, "answering a dropped message changed the table")
        guard !answers.isEmpty else { break }
        guard case .success(let frame) = RelayPipeFrame.decode(message, expectedPipe: topicPipe),
              reason == .unknownPipe, frame.kind != .open, frame.kind != .reset, answers.count == 1 else {
            preconditionFailure("a dropped message was answered: \(reason), \(answers.count) frame(s)")
        }
        let (key, reset) = answers[0]
        precondition(key.pipe == topicPipe && key.peer == topics.deviceTag(Array(0xA0...0xAF)) && reset == .reset(pipe: topicPipe, seq: 0, ack: frame.seq, window: 0, reason: .closed),
                     "an unknown pipe's frame was answered with something other than its RESET")
    case .frame, .refused, .acceptedShedding:
        preconditionFailure("an empty table found a pipe or refused one")
    }
    return 0
}
