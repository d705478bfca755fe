// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: RelayPipeFrame.decode, a message anyone allowed to publish
// on the broker may put under a pipe topic (PROTOCOL.md §11 "Pipes").
// Byte 0 picks whether the topic's pipe ID is checked (and which); the
// rest is the message. A frame accepted must re-encode to exactly the
// message, and never be larger than the limit. The message then goes to a
// device's pipe table (RelayPipeTable) as it would from the broker: it may
// open a pipe or be dropped, never anything else, and a table never
// answers what it drops.
@testable import HandoffContinuity

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
    case .dropped:
        precondition(table.pipes.isEmpty && table.poll(now: 0).isEmpty, "a dropped message changed the table or was answered")
    case .frame, .refused, .acceptedShedding:
        preconditionFailure("an empty table found a pipe or refused one")
    }
    return 0
}
