// SPDX-License-Identifier: MIT OR Apache-2.0
/// `CFBundleDocumentTypes` in an Info.plist: an entry carrying
/// `NSUbiquitousDocumentUserActivityType` makes that activity type
/// continuable by the app (Apple's document-based Handoff), and its
/// `LSItemContentTypes`, `CFBundleTypeExtensions` and
/// `CFBundleTypeMIMETypes` are kept as what it covers. Entries without the
/// key are document types Handoff has nothing to do with: passed over
/// silently. What cannot be read is skipped with a warning, as a bad
/// `NSUserActivityTypes` entry is.
extension Manifest {
    static let documentActivityTypeKey = "NSUbiquitousDocumentUserActivityType"

    mutating func declareDocumentTypes(_ value: PropertyListValue?, in name: String, warnings: inout [String]) throws(HandoffError) {
        guard let value else { return }
        guard case .array(let entries) = value else {
            warnings.append("\(name): \(Self.documentTypesKey) is \(Self.describe(value)), not an array: no document types are declared")
            return
        }
        for (index, entry) in entries.enumerated() {
            let at = "\(Self.documentTypesKey)[\(index)]"
            guard case .dictionary(let keys) = entry else {
                warnings.append("\(name): \(at) is \(Self.describe(entry)), not a dictionary: skipped")
                continue
            }
            guard let typeValue = keys[Self.documentActivityTypeKey] else { continue }
            guard case .string(let type) = typeValue else {
                warnings.append("\(name): \(at).\(Self.documentActivityTypeKey) is \(Self.describe(typeValue)), not a string: skipped")
                continue
            }
            if let problem = Identifier.activityTypeProblem(type) {
                warnings.append("\(name): \(at).\(Self.documentActivityTypeKey) \(Identifier.quoted(type)) \(problem): skipped")
                continue
            }
            func strings(_ key: String) -> [String] {
                switch keys[key] {
                case nil: return []
                case .array(let items)?:
                    return items.compactMap { item in
                        if case .string(let text) = item, !text.isEmpty { return text }
                        warnings.append("\(name): \(at).\(key) holds \(Self.describe(item)), not a string: skipped")
                        return nil
                    }
                case let other?:
                    warnings.append("\(name): \(at).\(key) is \(Self.describe(other)), not an array of strings: ignored")
                    return []
                }
            }
            let documentType = DocumentType(activityType: type, contentTypes: strings("LSItemContentTypes"),
                                            extensions: strings("CFBundleTypeExtensions"), mimeTypes: strings("CFBundleTypeMIMETypes"))
            do {
                try declare(documentType: documentType)
            } catch {
                throw HandoffError(.malformedData, "\(name): \(at): \(error.message)")
            }
        }
    }
}
