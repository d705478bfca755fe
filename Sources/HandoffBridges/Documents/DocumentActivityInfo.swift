// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The activity `org.libhandoff.document` (docs/documents.md §7): the
/// document's `file:` URL under Apple's `NSUserActivityDocumentURLKey` (a
/// URL value), the cursor when the app recorded one, and the desktop entry
/// that had it open. The sender offers it under the app's bundle id (its
/// desktop entry id); the receiver is the bridge, `org.libhandoff.documents`.
public struct DocumentActivityInfo: Sendable, Equatable {
    public static let type = "org.libhandoff.document"
    public static let bundle = "org.libhandoff.documents"
    public static let team = "LIBHANDOFF"
    public static let documentURLKey = "NSUserActivityDocumentURLKey"
    public static let maxTitleBytes = 256
    public typealias ParseError = MPRISActivityInfo.ParseError

    /// The document, `file:///…`.
    public var url: String
    public var cursor: DocumentCursor?
    /// The desktop-file id of the app that had it open (`org.xfce.mousepad.desktop`).
    public var desktopEntry: String?
    public var mimeType: String?

    public init(url: String, cursor: DocumentCursor? = nil, desktopEntry: String? = nil, mimeType: String? = nil) {
        self.url = url
        self.cursor = cursor
        self.desktopEntry = desktopEntry
        self.mimeType = mimeType
    }

    /// The file's name, control characters dropped, cut to 256 bytes.
    public static func title(path: String) -> String {
        let name = DocumentAppMatch.basename(path)
        let clean = String(name.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.map(Character.init))
        return MPRISActivityInfo.cut(clean, maxTitleBytes)
    }

    public var userInfo: UserInfo {
        var info: UserInfo = [:]
        info[Self.documentURLKey] = URLReference(string: url).map { .url($0) } ?? .string(url)
        if let cursor {
            info["line"] = .integer(Int64(cursor.line))
            info["column"] = .integer(Int64(cursor.column))
        }
        if let desktopEntry { info["desktop_entry"] = .string(MPRISActivityInfo.cut(desktopEntry, 255)) }
        if let mimeType { info["mime_type"] = .string(MPRISActivityInfo.cut(mimeType, 255)) }
        return info
    }

    /// What a sender offered: the URL (a URL value, or its text) is
    /// required and must be `file:`; the rest is taken when well-typed.
    public static func parse(_ info: UserInfo) -> Result<DocumentActivityInfo, ParseError> {
        let url: String
        switch info[documentURLKey] {
        case .url(let reference)?: url = reference.absoluteString
        case .string(let text)?: url = text
        default: return .failure(ParseError("no \(documentURLKey)"))
        }
        guard DocumentOfferRules.localPath(url) != nil else {
            return .failure(ParseError("\(documentURLKey) is not a local file: URL"))
        }
        var out = DocumentActivityInfo(url: url)
        if case .integer(let line)? = info["line"], case .integer(let column)? = info["column"],
           let cursor = DocumentCursor(line: Int(clamping: line), column: Int(clamping: column)) {
            out.cursor = cursor
        }
        if case .string(let entry)? = info["desktop_entry"], isDesktopID(entry) { out.desktopEntry = entry }
        if case .string(let type)? = info["mime_type"], type.utf8.count <= 255, type.contains("/") { out.mimeType = type }
        return .success(out)
    }

    /// A plain desktop-file id: `NAME.desktop`, no `/`, no control characters.
    public static func isDesktopID(_ id: String) -> Bool {
        id.hasSuffix(".desktop") && id.utf8.count > 8 && id.utf8.count <= 255 && !id.contains("/")
            && !id.hasPrefix(".") && id.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7f }
    }
}
