// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBridges
import HandoffJSON
import HandoffModel
import HandoffTestSupport
import Testing

/// The browsers' framing and the bridge's messages (docs/browser.md).
struct NativeMessageTests {
    static func frame(_ text: String) -> [UInt8] { NativeMessageDecoder.frame(text)! }
    static func header(_ n: UInt32) -> [UInt8] { [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)] }

    @Test func messagesArriveWholeHoweverTheBytesAreCut() {
        let bytes = Self.frame(#"{"type":"hello"}"#) + Self.frame("") + Self.frame(#"{"type":"status"}"#)
        for size in [1, 2, 3, 5, 7, bytes.count] {
            var decoder = NativeMessageDecoder()
            var events: [NativeMessageDecoder.Event] = []
            var i = 0
            while i < bytes.count {
                events += decoder.feed(bytes[i..<min(i + size, bytes.count)])
                i += size
            }
            #expect(events == [.message(Array(#"{"type":"hello"}"#.utf8)), .message([]), .message(Array(#"{"type":"status"}"#.utf8))])
            #expect(decoder.isAtBoundary)
        }
    }

    /// Over 64 KiB: skipped as it streams past, the next one intact; the
    /// decoder never holds more than one accepted message.
    @Test func anOverlongMessageIsSkippedNotBuffered() {
        var decoder = NativeMessageDecoder()
        let length = NativeMessageDecoder.maxMessage + 1
        var events = decoder.feed(Self.header(UInt32(length)))
        let chunk = [UInt8](repeating: 0x41, count: 4096)
        var sent = 0
        while sent < length {
            let n = min(chunk.count, length - sent)
            events += decoder.feed(chunk[0..<n])
            sent += n
            #expect(sent == length || !decoder.isAtBoundary)
        }
        events += decoder.feed(Self.frame(#"{"type":"status"}"#))
        #expect(events == [.skipped(length: length), .message(Array(#"{"type":"status"}"#.utf8))])
        // Exactly the limit is accepted.
        var exact = NativeMessageDecoder()
        #expect(exact.feed(Self.header(UInt32(NativeMessageDecoder.maxMessage)) + [UInt8](repeating: 0x20, count: NativeMessageDecoder.maxMessage))
                == [.message([UInt8](repeating: 0x20, count: NativeMessageDecoder.maxMessage))])
    }

    @Test func aLengthNoBrowserSendsBreaksTheStream() {
        var decoder = NativeMessageDecoder()
        let events = decoder.feed(Self.header(UInt32(NativeMessageDecoder.maxLength + 1)) + Self.frame("{}"))
        #expect(events.count == 1)
        if case .broken = events.first {} else { Issue.record("not broken: \(events)") }
        #expect(decoder.isBroken && decoder.feed(Self.frame("{}")) == [])
    }

    @Test func theEndInsideAMessageIsNotABoundary() {
        var decoder = NativeMessageDecoder()
        _ = decoder.feed(Self.header(10) + [1, 2])
        #expect(!decoder.isAtBoundary)
        var half = NativeMessageDecoder()
        _ = half.feed([5, 0])
        #expect(!half.isAtBoundary)
    }

    @Test func repliesOverOneMebibyteAreNotFramed() {
        #expect(NativeMessageDecoder.frame(String(repeating: "a", count: NativeMessageDecoder.maxReply)) != nil)
        #expect(NativeMessageDecoder.frame(String(repeating: "a", count: NativeMessageDecoder.maxReply + 1)) == nil)
    }

    // MARK: Messages

    func decode(_ text: String) throws(BrowserRequest.Refusal) -> BrowserRequest { try BrowserRequest.decode(Array(text.utf8)) }

    @Test func requests() throws {
        #expect(try decode(#"{"type":"hello","browser":"firefox","version":1}"#) == .hello(browser: "firefox", version: 1))
        #expect(try decode(#"{"type":"resign"}"#) == .resign && decode(#"{"type":"status","extra":[1]}"#) == .status)
        let page = URLReference(string: "https://example.com/a?b=1#c")!
        #expect(try decode(#"{"type":"current","url":"https://example.com/a?b=1#c","title":"A page"}"#)
                == .current(page: page, title: "A page"))
        #expect(try decode(#"{"type":"current","url":"HTTP://example.com/","title":null}"#)
                == .current(page: URLReference(string: "HTTP://example.com/")!, title: nil))
    }

    @Test func titlesAreCutBetweenCharactersAndLoseControlCharacters() throws {
        let long = String(repeating: "é", count: 200)  // 400 bytes
        guard case .current(_, let title?) = try decode(#"{"type":"current","url":"https://e.com/","title":"\#(long)"}"#) else {
            Issue.record("no title")
            return
        }
        #expect(title.utf8.count == 256 && title == String(repeating: "é", count: 128))
        guard case .current(_, let clean?) = try decode(#"{"type":"current","url":"https://e.com/","title":"a\nb\u0007c"}"#) else {
            Issue.record("no title")
            return
        }
        #expect(clean == "abc")
    }

    @Test(arguments: [
        (#"[1]"#, nil), (#""x""#, nil), (#"{"kind":"hello"}"#, nil), (#"{"type":7}"#, nil), ("{", nil),
        (#"{"type":"unknown"}"#, "unknown"),
        (#"{"type":"current"}"#, "current"), (#"{"type":"current","url":7}"#, "current"),
        (#"{"type":"current","url":"ftp://example.com/"}"#, "current"),
        (#"{"type":"current","url":"file:///etc/passwd"}"#, "current"),
        (#"{"type":"current","url":"javascript:alert(1)"}"#, "current"),
        (#"{"type":"current","url":"https://user:pw@example.com/"}"#, "current"),
        (#"{"type":"current","url":"https:///nohost"}"#, "current"),
        (#"{"type":"current","url":"https://example.com/","title":5}"#, "current"),
    ] as [(String, String?)])
    func refusals(text: String, about: String?) {
        do {
            _ = try decode(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.about == about, "\(text): \(error.reason)")
        }
    }

    @Test func aLongAddressIsRefused() {
        let url = "https://example.com/" + String(repeating: "a", count: BrowserRequest.maxURLBytes)
        #expect(throws: BrowserRequest.Refusal.self) { try decode(#"{"type":"current","url":"\#(url)"}"#) }
    }

    @Test func replies() throws {
        #expect(BrowserReply.status(agent: true, devices: ["Laptop"], reason: nil).json.text
                == #"{"type":"status","agent":true,"devices":["Laptop"]}"#)
        #expect(BrowserReply.open(page: URLReference(string: "https://e.com/")!, from: "Desk").json.text
                == #"{"type":"open","url":"https://e.com/","from":"Desk"}"#)
        #expect(BrowserReply.error("no", about: "current").json.text == #"{"type":"error","error":"no","about":"current"}"#)
    }
}

/// The fuzz target's hand-made hostile inputs (Tests/fuzz/regressions/
/// native-messaging), replayed as the host reads them.
struct NativeMessageRegressionTests {
    /// The events the input gives, fed as the fuzz target feeds it.
    static func events(_ bytes: [UInt8]) -> (events: [NativeMessageDecoder.Event], boundary: Bool) {
        var decoder = NativeMessageDecoder()
        let step = Int(bytes.first ?? 0) + 1
        var events: [NativeMessageDecoder.Event] = []
        var index = 1
        while index < bytes.count {
            events += decoder.feed(bytes[index..<min(index + step, bytes.count)])
            index += step
        }
        return (events, decoder.isAtBoundary)
    }

    @Test func theCorpusIsThere() {
        #expect(FuzzCorpus.names("native-messaging").count >= 9)
    }

    @Test(arguments: FuzzCorpus.names("native-messaging"))
    func hostileInputsAreRefusedNotTrapped(_ name: String) throws {
        let (events, boundary) = Self.events(try FuzzCorpus.read("native-messaging", name))
        for case .message(let message) in events {
            if case .current(let page, _)? = try? BrowserRequest.decode(message) {
                Issue.record("\(name): offered \(page)")
            }
        }
        switch name {
        case "over-limit-skipped":
            #expect(events == [.skipped(length: 65_537), .message(Array(#"{"type":"status"}"#.utf8))])
        case "length-over-64mib":
            #expect(events.count == 1)
            if case .broken = events.first {} else { Issue.record("not broken: \(events)") }
        case "end-mid-frame":
            #expect(events.isEmpty && !boundary)
        default:
            #expect(events.count == 1 && boundary, "\(name): \(events)")
        }
    }
}
