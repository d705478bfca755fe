// SPDX-License-Identifier: MIT OR Apache-2.0

/// One `<bookmark>` of a `recently-used.xbel` (GtkRecentManager's file, the
/// Desktop Bookmark Specification), or one KDE `RecentDocuments` entry:
/// what the documents bridge needs of it, as the file says it.
public struct RecentBookmark: Sendable, Equatable {
    /// One `<bookmark:application>`: an app that opened the document.
    public struct Application: Sendable, Equatable {
        /// `name`: what the app calls itself (`g_get_application_name`).
        public var name: String
        /// `exec`: its command line as GLib stores it (`'mousepad %u'`).
        public var exec: String
        /// `modified`: when it last registered the document (seconds since 1970; 0 when absent).
        public var modified: Double
        public var count: Int

        public init(name: String, exec: String, modified: Double, count: Int = 1) {
            self.name = name
            self.exec = exec
            self.modified = modified
            self.count = count
        }
    }

    /// `href`: the document's URL, as written (percent-encoded).
    public var href: String
    public var added: Double = 0
    public var modified: Double = 0
    public var visited: Double = 0
    /// `<mime:mime-type type=…>`.
    public var mimeType: String?
    /// `<desc>`: free text; Mousepad writes `Cursor: LINE:COLUMN;` in it.
    public var description: String?
    public var applications: [Application] = []
    /// `<bookmark:private/>`: never offered.
    public var isPrivate = false

    public init(href: String) {
        self.href = href
    }

    /// The application that registered it last (the latest `modified`;
    /// the later one in the file on a tie).
    public var newestApplication: Application? {
        applications.enumerated().max { a, b in
            a.element.modified != b.element.modified ? a.element.modified < b.element.modified : a.offset < b.offset
        }?.element
    }

    /// When it was last touched: the latest of its dates and its apps'.
    public var lastUsed: Double {
        applications.reduce(max(added, modified, visited)) { max($0, $1.modified) }
    }
}
