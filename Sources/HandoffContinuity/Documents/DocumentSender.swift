// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The sending device's side of documents (PROTOCOL.md §12): describes
/// each `file:` URL of a payload for a fetcher of revision 4 or later, and
/// remembers what it described so that DOCUMENT_OPEN can be served.
final class DocumentSender: Sendable {
    let offers = DocumentOffers()
    /// This device's places now (the settings may change at any time).
    let places: @Sendable () -> DocumentPlaces

    init(places: @escaping @Sendable () -> DocumentPlaces) {
        self.places = places
    }

    /// `payload` with its documents described, or unchanged when it names
    /// no `file:` URL. 4608 when a document cannot be described (nothing
    /// of it is sent), 4611 when the descriptions do not fit the budget.
    func describe(_ payload: [UInt8]) -> Result<[UInt8], HandoffError> {
        guard Self.mayHoldFileURL(payload),
              let activity = try? ActivityCoding.decode(payload) else { return .success(payload) }
        let userInfo = activity.userInfo
        let urls = DocumentURLs.find(in: userInfo).sorted()
        guard !urls.isEmpty else { return .success(payload) }
        guard urls.count <= DocumentEntry.maxPerActivity else {
            return .failure(HandoffError(.handoffFailed, "the activity names \(urls.count) documents; at most \(DocumentEntry.maxPerActivity) can be continued"))
        }
        let places = self.places()
        var described: [DescribedDocument] = []
        var entries: [String: PropertyListValue] = [:]
        for url in urls {
            guard let path = FileURL.path(of: url) else {
                return .failure(HandoffError(.handoffFailed, "a document of the activity cannot be described: its URL is not a file of the device that offers it"))
            }
            do {
                let document = try places.describe(path: path)
                described.append(document)
                entries[url] = DocumentEntry(location: document.location, facts: document.facts).propertyList
            } catch {
                // The message goes to the other device: the file's name and
                // a reason in general words, never a path of this device.
                let name = String(path.split(separator: "/").last ?? "")
                return .failure(HandoffError(.handoffFailed,
                    "the document \(DocumentText.escaped(name)) cannot be described: it is missing, not a regular file, over this device's size limit for documents, or in a folder this device never describes"))
            }
        }
        let documents = PropertyListValue.dictionary(entries)
        let size = BinaryPropertyList.encode(UserInfoCoding.propertyList(userInfo)).count
            + BinaryPropertyList.encode(documents).count
        guard size <= UserInfoRules.payloadBudget else {
            let longest = described.max { ($0.location.path ?? "").utf8.count < ($1.location.path ?? "").utf8.count }!
            return .failure(HandoffError(.userInfoTooLarge,
                "the userInfo and the description of its documents take \(size) bytes, over the \(UserInfoRules.payloadBudget)-byte budget (the path of \(DocumentText.escaped(longest.location.name)) is \((longest.location.path ?? "").utf8.count) bytes)"))
        }
        do {
            let bytes = try ActivityCoding.encode(activity, adding: [DocumentEntry.payloadKey: documents])
            offers.record(activity.activityID, described)
            return .success(bytes)
        } catch {
            return .failure(error)
        }
    }

    /// Whether the payload's bytes may hold the text `file:` in any case,
    /// as ASCII or UTF-16 (a property list's non-ASCII strings): a payload
    /// without it is passed on without being decoded.
    static func mayHoldFileURL(_ bytes: [UInt8]) -> Bool {
        let word = Array("file:".utf8)
        func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
        guard bytes.count >= word.count else { return false }
        var i = 0
        while i + word.count <= bytes.count {
            if lower(bytes[i]) == word[0] {
                if (1..<word.count).allSatisfy({ lower(bytes[i + $0]) == word[$0] }) { return true }
                if i + 2 * word.count - 1 <= bytes.count,
                   (1..<word.count).allSatisfy({ bytes[i + 2 * $0 - 1] == 0 && lower(bytes[i + 2 * $0]) == word[$0] }) { return true }
            }
            i += 1
        }
        return false
    }
}
