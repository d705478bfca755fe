// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// This device's places (docs/documents.md §2): how the sender describes a
/// file and where the receiver finds a described one.
///
/// Only home so far; the declared folders, Syncthing and cloud folders,
/// the never-described list and safe opening beneath a root come next.
public struct DocumentPlaces: Sendable {
    public var home: String?
    public var settings: DocumentSettings

    public init(home: String?, settings: DocumentSettings = DocumentSettings()) {
        self.home = home
        self.settings = settings
    }

    /// The places of the process's environment and `settings`.
    public static func load(environment: [String: String] = ProcessEnvironment.current,
                            settings: DocumentSettings = DocumentSettings()) -> DocumentPlaces {
        DocumentPlaces(home: environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }, settings: settings)
    }

    /// Describes the file at the absolute `path` (symbolic links followed
    /// here only).
    /// - Throws: `.invalidArgument` naming the file and why it cannot be
    ///   described (not a regular file, unreadable).
    public func describe(path: String) throws(HandoffError) -> DescribedDocument {
        guard let resolved = realpath(path, nil) else {
            throw HandoffError(.invalidArgument, "the document \(path) cannot be read: \(String(cString: strerror(errno)))")
        }
        defer { free(resolved) }
        let real = String(cString: resolved)
        let fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            throw HandoffError(.invalidArgument, "the document \(path) cannot be read: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        guard let facts = DocumentDigest.facts(ofOpenFile: fd) else {
            throw HandoffError(.invalidArgument, "the document \(path) is not a regular file")
        }
        let name = String(real.split(separator: "/").last ?? "")
        let location: DocumentLocation
        if let home, let inside = FileURL.relative(real, below: home) {
            location = try DocumentLocation(place: .home, root: nil, path: inside, name: name)
        } else {
            location = try DocumentLocation(place: .elsewhere, root: nil, path: nil, name: name)
        }
        return DescribedDocument(location: location, resolvedPath: real, facts: facts)
    }

    /// Where `location` is on this device; nil for `elsewhere` and a
    /// place this device does not have.
    public func locate(_ location: DocumentLocation) -> DocumentSlot? {
        guard location.place == .home, let home, let path = location.path else { return nil }
        return DocumentSlot(root: home, relative: path)
    }

    /// Where brought copies with no place here go.
    public var downloads: String? {
        home.map { $0 + "/Downloads/Handoff" }
    }
}

/// A file the sender described: what goes on the wire, and the path that
/// never leaves this device.
public struct DescribedDocument: Sendable, Hashable {
    public let location: DocumentLocation
    public let resolvedPath: String
    public let facts: DocumentFacts
}
