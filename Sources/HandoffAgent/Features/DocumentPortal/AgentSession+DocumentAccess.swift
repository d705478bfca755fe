// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// GRANT and REVOKE (docs/agent.md §3): a sandboxed app opens a document
/// the agent delivered to it through the document portal. Loop thread.
extension AgentSession {
    /// GRANT: the document at `url` for this app's Flatpak ID, when this
    /// connection was delivered it; the path inside the sandbox, or ERROR.
    func grant(_ url: String, requestID id: UInt32) {
        let path: [UInt8]
        switch Self.deliveredPath(url, documents.withLock { $0 }) {
        case .failure(let error): return finishDocumentRequest(id, .error(error))
        case .success(let p): path = p
        }
        let appID: String
        switch FlatpakApp.id(ofProcess: connection.peer.pid) {
        case .failure(let error): return finishDocumentRequest(id, .error(error))
        case .success(let a): appID = a
        }
        // Read after the pid's /proc: it was the connected app's only if
        // that app still runs now.
        guard connection.peerStillRuns else {
            return finishDocumentRequest(id, .error(HandoffError(.invalidState,
                "the app that connected (pid \(connection.peer.pid)) has exited: its connection cannot be granted documents")))
        }
        if let refusal = identityRefusal(appID) { return finishDocumentRequest(id, .error(refusal)) }
        if let grant = documents.withLock({ $0.grants[path] }), grant.appID == appID {
            documents.withLock { $0.grants[path]?.count += 1 }
            return finishDocumentRequest(id, .granted(grant.mountPoint + Self.portalPath(grant.documentID, path)))
        }
        guard documents.withLock({ $0.grants.count }) < DeliveredDocuments.maxGrants else {
            return finishDocumentRequest(id, .error(HandoffError(.invalidState,
                "this app holds \(DeliveredDocuments.maxGrants) documents open through the portal already: stop accessing one first")))
        }
        // The file as its path names it, no link on the way (PinnedDocument),
        // and a regular file: the portal refuses O_NOFOLLOW descriptors, so
        // the inode opened must be the one the path names.
        var st = stat()
        guard let fd = PinnedDocument.open(path) else {
            return finishDocumentRequest(id, .error(HandoffError(.notFound,
                "the document \(FileURL.url(forPath: path).absoluteString) is no longer a file here, or a link now lies on its path")))
        }
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return finishDocumentRequest(id, .error(HandoffError(.notFound,
                "the document \(FileURL.url(forPath: path).absoluteString) is no longer a file here")))
        }
        defer { close(fd) }
        let portal: DocumentPortal
        switch server.documentPortalConnection() {
        case .failure(let error): return finishDocumentRequest(id, .error(error))
        case .success(let p): portal = p
        }
        portal.add(fd, for: appID) { [weak self] result in
            guard let self else {
                // The session went while the portal answered: take it back.
                if case .success(let (documentID, _)) = result { portal.revoke(documentID, from: appID) { _ in } }
                return
            }
            switch result {
            case .failure(let error):
                self.server.log("portal", "\(self.describe): \(error.message)")
                self.finishDocumentRequest(id, .error(error))
            case .success(let (documentID, mountPoint)):
                guard self.isOpen else {
                    // It went while the portal answered: nothing to hold open.
                    let grant = DeliveredDocuments.Grant(documentID: documentID, appID: appID, count: 1, mountPoint: mountPoint)
                    return self.revokeOnPortal(grant) { _ in }
                }
                self.documents.withLock { d in
                    if d.grants[path]?.documentID == documentID { d.grants[path]?.count += 1 }
                    else { d.grants[path] = DeliveredDocuments.Grant(documentID: documentID, appID: appID, count: 1, mountPoint: mountPoint) }
                }
                self.server.log("portal-grant", "\(self.describe): document \(documentID) for \(appID)",
                                ["document": .string(documentID), "app": .string(appID)])
                self.finishDocumentRequest(id, .granted(mountPoint + Self.portalPath(documentID, path)))
            }
        }
    }

    /// REVOKE: one GRANT of `url` ends; the last takes the app's access back.
    func revoke(_ url: String, requestID id: UInt32) {
        guard let reference = URLReference(string: url), let path = FileURL.path(of: reference) else {
            return finishDocumentRequest(id, .error(Self.notFileURL(url)))
        }
        let last: DeliveredDocuments.Grant?? = documents.withLock { d in
            guard var grant = d.grants[path] else { return .none }
            grant.count -= 1
            d.grants[path] = grant.count > 0 ? grant : nil
            return .some(grant.count > 0 ? nil : grant)
        }
        guard let last else {
            return finishDocumentRequest(id, .error(HandoffError(.invalidState, "\(url) is not being accessed by this app")))
        }
        guard let grant = last else { return finishDocumentRequest(id, .ok) }
        revokeOnPortal(grant) { [weak self] result in
            switch result {
            case .success: self?.finishDocumentRequest(id, .ok)
            case .failure(let error): self?.finishDocumentRequest(id, .error(error))
            }
        }
    }

    /// The connection ended: what it still held open is taken back.
    func revokeAllDocuments() {
        let left = documents.withLock { d in
            defer { d.grants.removeAll() }
            return Array(d.grants.values)
        }
        for grant in left { revokeOnPortal(grant) { _ in } }
    }

    private func revokeOnPortal(_ grant: DeliveredDocuments.Grant, _ completion: @escaping (Result<Void, HandoffError>) -> Void) {
        switch server.documentPortalConnection() {
        case .failure(let error): completion(.failure(error))
        case .success(let portal):
            portal.revoke(grant.documentID, from: grant.appID) { [weak self] result in
                if case .failure(let error) = result, let self { self.server.log("portal", "\(self.describe): \(error.message)") }
                completion(result)
            }
        }
    }

    /// Why this connection may not open documents as `appID`, or nil. The
    /// agent delivers documents by what an app says it is (HELLO); a
    /// sandboxed app could say it is another app, or an observer, and be
    /// delivered that app's documents. Through the portal it opens them
    /// only as the app Flatpak installed: its HELLO names the Flatpak ID as
    /// its bundle, and the desktop entry Flatpak exported for it
    /// (`APPID.desktop`, which the app cannot write) declares its team and
    /// every type it asked for.
    func identityRefusal(_ appID: String) -> HandoffError? {
        guard let hello, !hello.observer else {
            return HandoffError(.permission, "a connection that observes every app opens no document through the portal")
        }
        let manifest = hello.manifest
        guard manifest.bundleIdentifier == appID,
              let app = server.routing.desktop?.installed.app(bundleIdentifier: appID),
              app.desktopID == appID + ".desktop", app.teamIdentifier == manifest.teamIdentifier,
              Set(manifest.activityTypes).isSubset(of: Set(app.activityTypes)) else {
            return HandoffError(.permission,
                "a sandboxed app opens documents only as the app Flatpak installed: \(appID).desktop must be installed, and the bundle, team and activity types the app announced (\(KeyFile.quoted(manifest.bundleIdentifier))) must be the ones it declares")
        }
        return nil
    }

    /// `url`'s path, if it is a document delivered on this connection.
    static func deliveredPath(_ url: String, _ documents: DeliveredDocuments) -> Result<[UInt8], HandoffError> {
        guard let reference = URLReference(string: url), let path = FileURL.path(of: reference) else {
            return .failure(notFileURL(url))
        }
        guard documents.delivered(path) else {
            return .failure(HandoffError(.permission,
                "the agent opens through the document portal only documents it delivered to this app in a continued activity; \(url) is not one"))
        }
        return .success(path)
    }

    static func notFileURL(_ url: String) -> HandoffError {
        HandoffError(.invalidArgument, "\(KeyFile.quoted(url)) is not a file: URL of a local path")
    }

    /// `/DOCID/NAME`: the document's place under the portal's mount point.
    static func portalPath(_ documentID: String, _ path: [UInt8]) -> [UInt8] {
        let name = path.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? []
        return Array("/\(documentID)/".utf8) + name
    }
}
