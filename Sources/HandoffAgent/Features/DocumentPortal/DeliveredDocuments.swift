// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// What one app connection may have opened through the document portal:
/// the paths of the documents the agent delivered to it (the local URLs
/// the engine wrote into `HandoffDocumentOrigins` of a payload this app
/// fetched), and the grants made. An app names a URL; only one of these
/// is ever exported, so a sandboxed app cannot make the agent hand it an
/// arbitrary file of the person's.
struct DeliveredDocuments {
    /// Paths remembered per connection (the oldest dropped), and grants.
    static let maxPaths = 256
    static let maxGrants = 64

    struct Grant {
        var documentID: String
        var appID: String
        /// Starts not yet stopped: revoked at 0.
        var count: Int
        /// The portal's mount point when it was granted.
        var mountPoint: [UInt8]
    }

    private(set) var paths: [[UInt8]] = []
    var grants: [[UInt8]: Grant] = [:]

    /// Records the documents of a payload the engine resolved for this app.
    mutating func record(payload: [UInt8]) {
        guard let activity = try? ActivityCoding.decode(payload),
              case .dictionary(let origins)? = activity.userInfo[FileURL.documentOriginsKey] else { return }
        for url in origins.keys.sorted() {
            guard let reference = URLReference(string: url), let path = FileURL.path(of: reference) else { continue }
            paths.removeAll { $0 == path }
            paths.append(path)
        }
        if paths.count > Self.maxPaths { paths.removeFirst(paths.count - Self.maxPaths) }
    }

    func delivered(_ path: [UInt8]) -> Bool { paths.contains(path) }
}
