// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// An HTTP/1.1 response read whole from a connection that closed
/// (`Connection: close`): the status code and the body, de-chunked. The one
/// HTTP reader of the library, for tailscaled's LocalAPI (`LocalAPIClient`);
/// strict and bounded, as its bytes come from another process.
///
/// Framing (RFC 9112): a status line `HTTP/1.x NNN reason`, header lines up
/// to an empty line (at most `maxHeaderBytes` in all), then the body:
/// `Transfer-Encoding: chunked` (what Go's net/http sends when it did not
/// buffer the whole body), else `Content-Length` bytes, else everything up
/// to the close. Work is linear in the input; nothing larger than the input
/// is allocated.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]

    public static let maxHeaderBytes = 16 * 1024

    /// Reads `bytes` (everything the server sent before it closed).
    /// - Throws: `.malformedData` for anything else: no status line, a
    ///   header block over the limit or unterminated, a length that
    ///   disagrees with the bytes, bad chunk sizes, a body cut short.
    public init(bytes: [UInt8]) throws(HandoffError) {
        guard let headerEnd = Self.find([13, 10, 13, 10], in: bytes[...], limit: Self.maxHeaderBytes) else {
            throw Self.error(bytes.count >= Self.maxHeaderBytes ? "the header is over \(Self.maxHeaderBytes) bytes"
                                                                 : "the header does not end")
        }
        let lines = Self.split(bytes[0..<headerEnd])
        guard let statusLine = lines.first else { throw Self.error("no status line") }
        status = try Self.statusCode(statusLine)
        var length: Int?
        var chunked = false
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                throw Self.error("a header line without a name")
            }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercased()
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces
            switch name {
            case "content-length":
                guard !value.isEmpty, value.utf8.count <= 12, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                      let n = Int(value), length == nil || length == n else {
                    throw Self.error("Content-Length \"\(value.prefix(32))\" is not one number")
                }
                length = n
            case "transfer-encoding":
                guard value.lowercased() == "chunked" else { throw Self.error("Transfer-Encoding \"\(value.prefix(32))\" is not chunked") }
                chunked = true
            default:
                continue
            }
        }
        let rest = bytes[(headerEnd + 4)...]
        if chunked {
            body = try Self.dechunk(rest)
        } else if let length {
            guard rest.count >= length else { throw Self.error("the body is cut short (\(rest.count) of \(length) bytes)") }
            body = Array(rest.prefix(length))
        } else {
            body = Array(rest)
        }
    }

    static func error(_ what: String) -> HandoffError {
        HandoffError(.malformedData, "not an HTTP/1.1 response: \(what)")
    }

    /// `HTTP/1.0 200 OK` or `HTTP/1.1 404 Not Found`: the three digits.
    static func statusCode(_ line: ArraySlice<UInt8>) throws(HandoffError) -> Int {
        let text = Array(line)
        guard text.count >= 12, Array(text[0..<7]) == Array("HTTP/1.".utf8), text[7] == 0x30 || text[7] == 0x31,
              text[8] == 0x20, text[9...11].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              text.count == 12 || text[12] == 0x20 else {
            throw error("the status line is not HTTP/1.x NNN")
        }
        return text[9...11].reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// The lines of a header block (CRLF-separated; a bare LF ends a line too).
    static func split(_ block: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = block.startIndex
        for i in block.indices where block[i] == 10 {
            var end = i
            if end > start && block[end - 1] == 13 { end -= 1 }
            lines.append(block[start..<end])
            start = i + 1
        }
        var end = block.endIndex
        if end > start && block[end - 1] == 13 { end -= 1 }
        if start < end { lines.append(block[start..<end]) }
        return lines
    }

    /// Chunks: `hex-size[;ext] CRLF data CRLF`, ended by a zero size and
    /// optional trailers. The body is never larger than the input.
    static func dechunk(_ input: ArraySlice<UInt8>) throws(HandoffError) -> [UInt8] {
        var body: [UInt8] = []
        var at = input.startIndex
        while true {
            guard let lineEnd = find([13, 10], in: input[at...], limit: 64) else { throw error("a chunk size line does not end") }
            var size = 0
            var digits = 0
            for b in input[at..<lineEnd] {
                if b == UInt8(ascii: ";") { break }
                guard let v = hexValue(b), digits < 8 else { throw error("a chunk size is not hexadecimal") }
                size = size * 16 + v
                digits += 1
            }
            guard digits > 0 else { throw error("a chunk has no size") }
            at = lineEnd + 2
            if size == 0 { return body }  // trailers, if any, are not read
            guard input.endIndex - at >= size + 2 else { throw error("a chunk is cut short") }
            body.append(contentsOf: input[at..<(at + size)])
            at += size
            guard input[at] == 13, input[at + 1] == 10 else { throw error("a chunk does not end with CRLF") }
            at += 2
        }
    }

    static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case 0x30...0x39: Int(b - 0x30)
        case 0x41...0x46: Int(b - 0x41 + 10)
        case 0x61...0x66: Int(b - 0x61 + 10)
        default: nil
        }
    }

    /// Index of the first `needle` in `hay` starting within `limit` bytes of its start.
    static func find(_ needle: [UInt8], in hay: ArraySlice<UInt8>, limit: Int) -> Int? {
        let last = min(hay.endIndex - needle.count, hay.startIndex + limit)
        guard last >= hay.startIndex else { return nil }
        var i = hay.startIndex
        while i <= last {
            if hay[i] == needle[0] {
                var k = 1
                while k < needle.count && hay[i + k] == needle[k] { k += 1 }
                if k == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}

private extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
