// SPDX-License-Identifier: MIT OR Apache-2.0
import CExpat

/// What a reader built on `UntrustedXML` does with a document's events.
public protocol XMLEventSink: AnyObject {
    func start(_ name: String, _ attributes: XMLAttributes)
    func end(_ name: String)
    func characters(_ text: UnsafeBufferPointer<UInt8>)
}

/// An element's attributes as expat hands them: read them in `start`, not later.
public struct XMLAttributes {
    let list: UnsafeMutablePointer<UnsafePointer<XML_Char>?>?

    /// Name to value, the first `limit` pairs (an element may carry thousands).
    public func dictionary(limit: Int = 64) -> [String: String] {
        var out: [String: String] = [:]
        guard let list else { return out }
        var index = 0
        while let name = list[index], let value = list[index + 1], out.count < limit {
            out[String(cString: name)] = String(cString: value)
            index += 2
        }
        return out
    }
}

/// expat set up for a document that is input, not trust, as every XML
/// reader here wants it: the whole document in one call, at most `maxBytes`,
/// every entity declaration refused (so nothing expands), and the first
/// failure (the reader's, the refusal or expat's) stopping the parse and
/// naming the line and column.
public final class UntrustedXML {
    /// What one `XML_Parse` call takes (its length is an `Int32`).
    public static let maxBytes = Int(Int32.max)

    private let parser: XML_Parser
    private var sink: XMLEventSink?
    private var refusal: (String) -> String = { _ in "" }
    /// The first failure, with its position; nil while all is well.
    public private(set) var failure: String?

    /// nil when expat cannot make a parser (out of memory). With
    /// `namespaces`, names arrive as "URI NAME" (separated by a space).
    public init?(namespaces: Bool = false) {
        guard let made = namespaces ? XML_ParserCreateNS(nil, 0x20) : XML_ParserCreate(nil) else { return nil }
        parser = made
    }

    deinit { XML_ParserFree(parser) }

    /// Where expat is, for messages: "line L, column C" (both from 1).
    public func position() -> String {
        "line \(XML_GetCurrentLineNumber(parser)), column \(XML_GetCurrentColumnNumber(parser) + 1)"
    }

    /// Stops the parse; the first reason given is the one kept.
    public func fail(_ reason: String) {
        guard failure == nil else { return }
        failure = "\(position()): \(reason)"
        XML_StopParser(parser, 0)
    }

    /// Parses `bytes` as one whole document into `sink`; `refusal` says why
    /// an entity declaration (its name given) is refused. Nil when the
    /// document was read and nothing failed, else why not. One call a parser.
    public func parse(_ bytes: [UInt8], into sink: XMLEventSink,
                      refusingEntities refusal: @escaping (String) -> String) -> String? {
        guard bytes.count <= Self.maxBytes else { return "\(bytes.count) bytes is over expat's limit" }
        self.sink = sink
        self.refusal = refusal
        defer { self.sink = nil }
        XML_SetUserData(parser, Unmanaged.passUnretained(self).toOpaque())
        XML_SetElementHandler(parser, { context, name, attributes in
            guard let context, let name, let sink = UntrustedXML.from(context).sink else { return }
            sink.start(String(cString: name), XMLAttributes(list: attributes))
        }, { context, name in
            guard let context, let name, let sink = UntrustedXML.from(context).sink else { return }
            sink.end(String(cString: name))
        })
        XML_SetCharacterDataHandler(parser, { context, text, length in
            guard let context, let text, length > 0, let sink = UntrustedXML.from(context).sink else { return }
            text.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
                sink.characters(UnsafeBufferPointer(start: $0, count: Int(length)))
            }
        })
        XML_SetEntityDeclHandler(parser, { context, name, _, _, _, _, _, _, _ in
            guard let context else { return }
            let xml = UntrustedXML.from(context)
            xml.fail(xml.refusal(name.map { String(cString: $0) } ?? "?"))
        })
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { XML_Parse(parser, $0.baseAddress, Int32($0.count), 1) }
        }
        if let failure { return failure }
        guard status == XML_STATUS_OK else {
            let reason = XML_ErrorString(XML_GetErrorCode(parser)).map { String(cString: $0) } ?? "error"
            return "\(position()): not well-formed XML: \(reason)"
        }
        return nil
    }

    private static func from(_ context: UnsafeMutableRawPointer) -> UntrustedXML {
        Unmanaged<UntrustedXML>.fromOpaque(context).takeUnretainedValue()
    }
}
