// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: the browser bridge's input (docs/browser.md): the
// native-messaging frames a browser writes to `handoff browser-host`, fed
// in pieces cut where the input says, each whole message read as JSON and
// decoded as a request (its JSON by UserInfoJSON, fuzzed on its own too). Any input gives messages, skips, a broken stream
// or refusals, never a trap; what is held stays within its bounds.
import HandoffBridges

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    // The first byte chooses how the rest arrives: 1 to 256 bytes a read.
    let step = Int(first) + 1
    let stream = bytes.dropFirst()
    var decoder = NativeMessageDecoder()
    var index = stream.startIndex
    while index < stream.endIndex {
        let end = min(index + step, stream.endIndex)
        for event in decoder.feed(stream[index..<end]) {
            switch event {
            case .message(let message):
                precondition(message.count <= NativeMessageDecoder.maxMessage)
                if case .current(let page, let title)? = try? BrowserRequest.decode(message) {
                    precondition(page.absoluteString.utf8.count <= BrowserRequest.maxURLBytes)
                    precondition((title?.utf8.count ?? 0) <= BrowserRequest.maxTitleBytes)
                    precondition(!page.hasCredentials)
                }
            case .skipped(let length):
                precondition(length > NativeMessageDecoder.maxMessage && length <= NativeMessageDecoder.maxLength)
            case .broken:
                precondition(decoder.isBroken)
            }
        }
        index = end
    }
    return 0
}
