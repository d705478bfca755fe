// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Reads `recently-used.xbel`, the file GtkRecentManager (every GTK app,
/// LibreOffice, GNOME) and KDE Frameworks' KIO keep: XBEL 1.0 with the
/// Desktop Bookmark Specification's metadata. Namespace-aware (expat with
/// namespace processing), as GLib's GBookmarkFile is:
///
///     <bookmark href="file:///…" added="…" modified="…" visited="…">
///       <desc>…</desc>
///       <info><metadata owner="http://freedesktop.org">
///         <mime:mime-type type="text/plain"/>
///         <bookmark:applications>
///           <bookmark:application name="Mousepad" exec="'mousepad %u'" modified="…" count="2"/>
///         </bookmark:applications>
///         <bookmark:private/>
///       </metadata></info>
///     </bookmark>
///
/// The file is input, not trust: at most `maxBytes`, entity declarations
/// refused (no expansion tricks), a bookmark whose `href` is over
/// `maxURLBytes` skipped, descriptions cut to `maxDescriptionBytes`, at most
/// `maxApplications` apps a bookmark; only the `keep` most recently used
/// bookmarks are kept (newest first). Anything not well-formed is refused
/// whole, as GLib refuses it.
public enum RecentlyUsedReader {
    public static let maxBytes = 16 << 20
    public static let keep = 64
    public static let maxURLBytes = 4096
    public static let maxDescriptionBytes = 4096
    public static let maxApplications = 32

    static let bookmarkNamespace = "http://www.freedesktop.org/standards/desktop-bookmarks"
    static let mimeNamespace = "http://www.freedesktop.org/standards/shared-mime-info"
    static let freedesktopOwner = "http://freedesktop.org"

    /// The bookmarks, most recently used first, at most `keep` of them.
    /// - Throws: `.malformedData` naming the line and column, or the size.
    public static func read(_ bytes: [UInt8], keep: Int = keep) throws(HandoffError) -> [RecentBookmark] {
        guard bytes.count <= maxBytes else {
            throw HandoffError(.malformedData, "recently-used.xbel: \(bytes.count) bytes, over the \(maxBytes)-byte limit")
        }
        guard let xml = UntrustedXML(namespaces: true) else {
            throw HandoffError(.malformedData, "cannot create an XML parser (out of memory)")
        }
        let builder = XBELBuilder(xml: xml, keep: max(keep, 0))
        if let failure = xml.parse(bytes, into: builder, refusingEntities: { _ in
            "the file declares an entity; recently-used.xbel has none"
        }) {
            throw HandoffError(.malformedData, "recently-used.xbel: \(failure)")
        }
        guard builder.sawRoot else {
            throw HandoffError(.malformedData, "recently-used.xbel: the root element is not <xbel>")
        }
        return builder.kept
    }
}

/// Builds bookmarks from expat's events; keeps the newest few as it goes.
private final class XBELBuilder: XMLEventSink {
    private let xml: UntrustedXML
    private let keep: Int
    private(set) var kept: [RecentBookmark] = []
    private var failure: String? { xml.failure }
    private(set) var sawRoot = false
    private var depth = 0
    private var bookmark: RecentBookmark?
    private var skipping = false
    private var bookmarkDepth = 0
    private var inFreedesktopMetadata = false
    private var description: [UInt8]?

    init(xml: UntrustedXML, keep: Int) {
        self.xml = xml
        self.keep = keep
    }

    private func fail(_ reason: String) { xml.fail(reason) }

    private static func split(_ name: String) -> (String, Substring) {
        guard let space = name.lastIndex(of: " ") else { return ("", Substring(name)) }
        return (String(name[..<space]), name[name.index(after: space)...])
    }

    func start(_ name: String, _ list: XMLAttributes) {
        guard failure == nil else { return }
        let attributes = list.dictionary()
        depth += 1
        let (namespace, local) = Self.split(name)
        if depth == 1 {
            guard namespace.isEmpty, local == "xbel" else { return fail("the root element is <\(local)>, not <xbel>") }
            sawRoot = true
            return
        }
        if depth == 2 {
            guard namespace.isEmpty, local == "bookmark" else { return }
            let href = attributes["href"] ?? ""
            bookmarkDepth = depth
            skipping = href.isEmpty || href.utf8.count > RecentlyUsedReader.maxURLBytes
            var made = RecentBookmark(href: href)
            made.added = attributes["added"].flatMap(XBELDate.parse) ?? 0
            made.modified = attributes["modified"].flatMap(XBELDate.parse) ?? 0
            made.visited = attributes["visited"].flatMap(XBELDate.parse) ?? 0
            bookmark = made
            return
        }
        guard bookmark != nil, !skipping else { return }
        switch (namespace, local) {
        case ("", "desc") where depth == bookmarkDepth + 1:
            description = []
        case ("", "metadata"):
            inFreedesktopMetadata = attributes["owner"] == RecentlyUsedReader.freedesktopOwner
        case (RecentlyUsedReader.mimeNamespace, "mime-type") where inFreedesktopMetadata:
            bookmark!.mimeType = attributes["type"]
        case (RecentlyUsedReader.bookmarkNamespace, "private") where inFreedesktopMetadata:
            bookmark!.isPrivate = true
        case (RecentlyUsedReader.bookmarkNamespace, "application") where inFreedesktopMetadata:
            guard bookmark!.applications.count < RecentlyUsedReader.maxApplications,
                  let appName = attributes["name"], let exec = attributes["exec"] else { return }
            // GLib writes `modified`; files of GTK 2 wrote `timestamp` (seconds).
            let when = attributes["modified"].flatMap(XBELDate.parse)
                ?? attributes["timestamp"].flatMap { Double($0) } ?? 0
            let count = attributes["count"].flatMap { Int($0) } ?? 1
            bookmark!.applications.append(.init(name: appName, exec: exec, modified: when, count: count))
        default:
            break
        }
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>) {
        guard failure == nil, description != nil else { return }
        let room = RecentlyUsedReader.maxDescriptionBytes - description!.count
        if room > 0 { description!.append(contentsOf: text.prefix(room)) }
    }

    func end(_ name: String) {
        guard failure == nil else { return }
        defer { depth -= 1 }
        let (namespace, local) = Self.split(name)
        if namespace.isEmpty, local == "desc", description != nil, depth == bookmarkDepth + 1 {
            // Cut on a character boundary: a cut may have split one.
            bookmark?.description = String(decoding: description!, as: UTF8.self)
            description = nil
        } else if namespace.isEmpty, local == "metadata" {
            inFreedesktopMetadata = false
        } else if depth == bookmarkDepth, let done = bookmark {
            bookmark = nil
            if !skipping { add(done) }
            skipping = false
        }
    }

    /// Keeps the `keep` most recently used, newest first.
    private func add(_ made: RecentBookmark) {
        let used = made.lastUsed
        if kept.count == keep, let last = kept.last, last.lastUsed >= used { return }
        let at = kept.firstIndex { $0.lastUsed < used } ?? kept.count
        kept.insert(made, at: at)
        if kept.count > keep { kept.removeLast() }
    }
}
