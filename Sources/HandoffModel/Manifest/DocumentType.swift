// SPDX-License-Identifier: MIT OR Apache-2.0
/// A kind of document the app continues (Apple: an entry of
/// `CFBundleDocumentTypes` with `NSUbiquitousDocumentUserActivityType`): its
/// activity type is continuable by the app, as if listed in
/// `NSUserActivityTypes`, and the rest says which documents it covers. A
/// desktop entry says the same with `X-Handoff-Document-Activity-Type` and
/// its `MimeType=` (docs/agent.md §5).
public struct DocumentType: Sendable, Equatable {
    public let activityType: String
    /// Uniform type identifiers (`LSItemContentTypes`: `public.plain-text`).
    public let contentTypes: [String]
    /// File name extensions without the dot (`CFBundleTypeExtensions`).
    public let extensions: [String]
    /// MIME types (`CFBundleTypeMIMETypes`; a desktop entry's `MimeType=`).
    public let mimeTypes: [String]

    public init(activityType: String, contentTypes: [String] = [], extensions: [String] = [], mimeTypes: [String] = []) {
        self.activityType = activityType
        self.contentTypes = contentTypes
        self.extensions = extensions
        self.mimeTypes = mimeTypes
    }
}

extension Manifest {
    /// Most document types one manifest declares.
    public static let maxDocumentTypes = 64

    /// Declares a document type: its activity type is declared (as
    /// `declare(_:)`) and the entry kept.
    /// - Throws: `.invalidValue` as `declare(_:)`, or for one more than
    ///   `maxDocumentTypes`.
    public mutating func declare(documentType: DocumentType) throws(HandoffError) {
        guard documentTypes.count < Self.maxDocumentTypes else {
            throw HandoffError(.invalidValue,
                "a manifest declares at most \(Self.maxDocumentTypes) document types; \(Identifier.quoted(documentType.activityType)) would be one more")
        }
        try declare(documentType.activityType)
        documentTypes.append(documentType)
    }
}
