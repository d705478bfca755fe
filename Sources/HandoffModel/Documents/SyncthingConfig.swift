// SPDX-License-Identifier: MIT OR Apache-2.0
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
        guard let xml = UntrustedXML() else {
            throw HandoffError(.malformedData, "config.xml: cannot create an XML parser (out of memory)")
        }
        let reader = SyncthingReader(xml: xml)
        // No entity may be declared: a billion laughs costs nothing then.
        if let failure = xml.parse(bytes, into: reader, refusingEntities: { _ in "an entity is declared" }) {
            throw HandoffError(.malformedData, "config.xml: \(failure)")
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
private final class SyncthingReader: XMLEventSink {
    struct Raw { var id: String; var path: String; var type: String }
    let xml: UntrustedXML
    var depth = 0
    var sawRoot = false
    var raw: [Raw] = []
    var failure: String? { xml.failure }

    init(xml: UntrustedXML) { self.xml = xml }

    func fail(_ reason: String) { xml.fail(reason) }

    func end(_ name: String) { depth -= 1 }

    func characters(_ text: UnsafeBufferPointer<UInt8>) {}

    func start(_ element: String, _ attributes: XMLAttributes) {
        depth += 1
        guard failure == nil else { return }
        if depth == 1 {
            if element == "configuration" { sawRoot = true } else { fail("the root element is <\(element)>, not <configuration>") }
            return
        }
        guard depth <= SyncthingConfig.maxDepth else { return fail("elements nested over \(SyncthingConfig.maxDepth) deep") }
        guard depth == 2, element == "folder" else { return }
        guard raw.count < SyncthingConfig.maxFolders else { return fail("more than \(SyncthingConfig.maxFolders) folders") }
        let given = attributes.dictionary(limit: .max)
        let folder = Raw(id: given["id"] ?? "", path: given["path"] ?? "", type: given["type"] ?? "sendreceive")
        raw.append(folder)
    }
}
