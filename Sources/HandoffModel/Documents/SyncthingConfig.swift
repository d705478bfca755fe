// SPDX-License-Identifier: MIT OR Apache-2.0
import CExpat

/// One Syncthing folder of this device: its folder ID (the same on every
/// device that shares it) and where it is here.
public struct SyncthingFolder: Sendable, Hashable {
    public var id: String
    /// Absolute, `~` expanded, no trailing `/`.
    public var path: String

    public init(id: String, path: String) {
        self.id = id
        self.path = path
    }
}

/// Reads Syncthing's `config.xml` (docs/documents.md §2): each
/// `<folder id="…" path="…" type="…">` directly under `<configuration>`
/// (those under `<defaults>` are templates, not folders). Paused folders
/// count (their files are there); `type="receiveencrypted"` ones do not
/// (their files are ciphertext). A folder whose ID could not travel (over
/// 255 bytes, a control character) or whose path is not absolute once `~`
/// is expanded is left out. Bounded: the file's size, the folders kept.
public enum SyncthingConfig {
    public static let maxBytes = 4 << 20
    public static let maxFolders = 1024
    static let maxDepth = 64

    /// The folders of a config.xml's bytes; `home` expands `~`.
    /// - Throws: `.malformedData` for a file that is not one (too large,
    ///   not well-formed XML, an entity declared, another root element).
    public static func folders(_ bytes: [UInt8], home: String?) throws(HandoffError) -> [SyncthingFolder] {
        guard bytes.count <= maxBytes else {
            throw HandoffError(.malformedData, "config.xml: \(bytes.count) bytes, over the \(maxBytes)-byte limit")
        }
        guard let parser = XML_ParserCreate(nil) else {
            throw HandoffError(.malformedData, "config.xml: cannot create an XML parser (out of memory)")
        }
        defer { XML_ParserFree(parser) }
        let reader = SyncthingReader(parser: parser)
        XML_SetUserData(parser, Unmanaged.passUnretained(reader).toOpaque())
        XML_SetElementHandler(parser, { context, name, attributes in
            guard let context, let name else { return }
            Unmanaged<SyncthingReader>.fromOpaque(context).takeUnretainedValue().start(name, attributes)
        }, { context, _ in
            guard let context else { return }
            Unmanaged<SyncthingReader>.fromOpaque(context).takeUnretainedValue().depth -= 1
        })
        // No entity may be declared: a billion laughs costs nothing then.
        XML_SetEntityDeclHandler(parser, { context, _, _, _, _, _, _, _, _ in
            guard let context else { return }
            Unmanaged<SyncthingReader>.fromOpaque(context).takeUnretainedValue().fail("an entity is declared")
        })
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { XML_Parse(parser, $0.baseAddress, Int32($0.count), 1) }
        }
        if let failure = reader.failure { throw HandoffError(.malformedData, "config.xml: \(failure)") }
        guard status == XML_STATUS_OK else {
            let reason = XML_ErrorString(XML_GetErrorCode(parser)).map { String(cString: $0) } ?? "error"
            throw HandoffError(.malformedData, "config.xml: line \(XML_GetCurrentLineNumber(parser)): not well-formed XML: \(reason)")
        }
        guard reader.sawRoot else { throw HandoffError(.malformedData, "config.xml: no <configuration> element") }
        // An ID twice (Syncthing refuses that): the first one decides.
        var seen: Set<String> = []
        return reader.raw.compactMap { raw -> SyncthingFolder? in
            guard seen.insert(raw.id).inserted, raw.type != "receiveencrypted", DocumentRoots.isWireRoot(raw.id),
                  let path = DocumentRoots.expand(raw.path, home: home) else { return nil }
            return SyncthingFolder(id: raw.id, path: path)
        }
    }
}

/// expat's events for `folders`: the first error stops the parser.
private final class SyncthingReader {
    struct Raw { var id: String; var path: String; var type: String }
    let parser: XML_Parser
    var depth = 0
    var sawRoot = false
    var raw: [Raw] = []
    var failure: String?

    init(parser: XML_Parser) { self.parser = parser }

    func fail(_ reason: String) {
        guard failure == nil else { return }
        failure = "line \(XML_GetCurrentLineNumber(parser)): \(reason)"
        XML_StopParser(parser, 0)
    }

    func start(_ name: UnsafePointer<CChar>, _ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>?) {
        depth += 1
        guard failure == nil else { return }
        let element = String(cString: name)
        if depth == 1 {
            if element == "configuration" { sawRoot = true } else { fail("the root element is <\(element)>, not <configuration>") }
            return
        }
        guard depth <= SyncthingConfig.maxDepth else { return fail("elements nested over \(SyncthingConfig.maxDepth) deep") }
        guard depth == 2, element == "folder" else { return }
        guard raw.count < SyncthingConfig.maxFolders else { return fail("more than \(SyncthingConfig.maxFolders) folders") }
        var folder = Raw(id: "", path: "", type: "sendreceive")
        var index = 0
        while let attributes, let key = attributes[index], let value = attributes[index + 1] {
            switch String(cString: key) {
            case "id": folder.id = String(cString: value)
            case "path": folder.path = String(cString: value)
            case "type": folder.type = String(cString: value)
            default: break
            }
            index += 2
        }
        raw.append(folder)
    }
}
