// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// One entry of an activity payload's `documents` dictionary (PROTOCOL.md
/// §12): where a `file:` URL's document lives and what it holds.
public struct DocumentEntry: Sendable, Hashable {
    public let location: DocumentLocation
    public let facts: DocumentFacts

    public init(location: DocumentLocation, facts: DocumentFacts) {
        self.location = location
        self.facts = facts
    }

    /// The payload's top-level key.
    public static let payloadKey = "documents"
    /// At most this many documents per activity.
    public static let maxPerActivity = 8
    /// Sizes beyond this are not integers every reader holds exactly.
    public static let maxSize: UInt64 = 1 << 53

    enum Key {
        static let place = "place", root = "root", path = "path", name = "name"
        static let size = "size", modified = "modified", sha256 = "sha256"
    }

    public var propertyList: PropertyListValue {
        var d: [String: PropertyListValue] = [
            Key.place: .string(location.place.rawValue),
            Key.name: .string(location.name),
            Key.size: .integer(Int64(facts.size)),
            Key.modified: .date(facts.modified.timeIntervalSinceReferenceDate),
            Key.sha256: .data(facts.sha256),
        ]
        d[Key.root] = location.root.map(PropertyListValue.string)
        d[Key.path] = location.path.map(PropertyListValue.string)
        return .dictionary(d)
    }

    /// Reads an entry a peer sent.
    /// - Throws: `.malformedData` saying what is wrong.
    public init(propertyList value: PropertyListValue) throws(HandoffError) {
        guard case .dictionary(let d) = value else {
            throw HandoffError(.malformedData, "a document entry is not a dictionary")
        }
        func string(_ key: String) throws(HandoffError) -> String? {
            switch d[key] {
            case nil: return nil
            case .string(let s)?: return s
            default: throw HandoffError(.malformedData, "a document entry's \(key) is not a string")
            }
        }
        guard let placeName = try string(Key.place), let place = DocumentPlace(rawValue: placeName) else {
            throw HandoffError(.malformedData, "a document entry names no known place")
        }
        guard let name = try string(Key.name) else {
            throw HandoffError(.malformedData, "a document entry has no name")
        }
        let location = try DocumentLocation(place: place, root: try string(Key.root), path: try string(Key.path), name: name)
        guard case .integer(let size)? = d[Key.size], size >= 0, UInt64(size) <= Self.maxSize else {
            throw HandoffError(.malformedData, "a document entry's size is not an integer from 0 to 2^53")
        }
        guard case .date(let modified)? = d[Key.modified], modified.isFinite else {
            throw HandoffError(.malformedData, "a document entry's modification time is not a finite date")
        }
        guard case .data(let digest)? = d[Key.sha256], digest.count == 32 else {
            throw HandoffError(.malformedData, "a document entry's sha256 is not 32 bytes of data")
        }
        self.location = location
        self.facts = DocumentFacts(size: UInt64(size), modified: Timestamp(timeIntervalSinceReferenceDate: modified), sha256: digest)
    }

    /// Reads a payload's `documents` value: URL text → entry.
    public static func entries(_ value: PropertyListValue) throws(HandoffError) -> [String: DocumentEntry] {
        guard case .dictionary(let d) = value else {
            throw HandoffError(.malformedData, "the payload's documents is not a dictionary")
        }
        guard d.count <= maxPerActivity else {
            throw HandoffError(.malformedData, "the payload describes \(d.count) documents, over \(maxPerActivity)")
        }
        var out: [String: DocumentEntry] = [:]
        for (url, entry) in d {
            do { out[url] = try DocumentEntry(propertyList: entry) } catch {
                throw HandoffError(.malformedData, "\(error.message) (document \(KeyFile.quoted(DocumentText.escaped(String(url.prefix(200))))))")
            }
        }
        return out
    }
}
