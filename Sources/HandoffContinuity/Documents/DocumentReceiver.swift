// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// How a document the app gets came to be here (the values of
/// `HandoffDocumentOrigins`, PROTOCOL.md §12).
public enum DocumentOrigin: String, Sendable {
    /// This device's file had the same content already.
    case same
    /// A sync that was catching up brought the same content.
    case synced
    /// The sender's bytes came along, stored beside the person's file.
    case brought
}

/// The receiving device's side of documents (PROTOCOL.md §12): before an
/// app sees a payload, each described document is found here (same
/// file, a sync catching up, or the sender's bytes brought along) and its
/// URL replaced by the local file's. No URL of the sender reaches the app.
final class DocumentReceiver: Sendable {
    /// The key the receiver adds to userInfo.
    static let originsKey = FileURL.documentOriginsKey

    /// Streams a document's bytes from its sender into a copy, checking
    /// the count and hash; nil when there is no way to ask the sender.
    typealias Bring = @Sendable (_ entry: DocumentEntry, _ into: BroughtCopy) -> Result<Void, HandoffError>
    /// How far a document came (`DocumentProgress`): 0 when a sync wait begins.
    typealias Report = @Sendable (_ entry: DocumentEntry, _ received: UInt64) -> Void

    let places: @Sendable () -> DocumentPlaces
    /// Readable once the engine stops: a wait for a sync ends then (held
    /// here, so its descriptor lives as long as any thread that waits on it).
    let stop: WakePipe?

    init(places: @escaping @Sendable () -> DocumentPlaces, stop: WakePipe? = nil) {
        self.places = places
        self.stop = stop
    }

    /// Whether the engine stopped (`stop` readable).
    var isStopping: Bool {
        guard let stop else { return false }
        var p = pollfd(fd: stop.fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) > 0
    }

    /// `payload` with its documents resolved, or unchanged when it carries
    /// none (or cannot be read: the app's own decoding then says why).
    /// `revision` is what the fetch's connection agreed on: from 4 a
    /// `file:` URL without a description is malformed (PROTOCOL.md §12);
    /// nil for a payload kept since its fetch (a saved one), checked then.
    /// Blocking: it may wait for a sync and bring bytes along.
    func resolve(_ payload: [UInt8], revision: Int?, from deviceName: String, bring: Bring?,
                 report: Report? = nil) -> Result<[UInt8], HandoffError> {
        let read: Read
        switch Self.read(payload, revision: revision) {
        case .failure(let error): return .failure(error)
        case .success(nil): return .success(payload)
        case .success(let found?): read = found
        }
        guard let entries = read.entries else { return Self.withoutOrigins(read.activity, payload) }
        let activity = read.activity
        var userInfo = activity.userInfo
        let places = self.places()
        var replacements: [String: URLReference] = [:]
        var origins: [String: UserInfoValue] = [:]
        // Copies brought for this continuation: removed again when it
        // fails after all, so that a failed continuation writes nothing.
        var brought: [String] = []
        func failing(_ error: HandoffError) -> Result<[UInt8], HandoffError> {
            for path in brought { unlink(path) }
            return .failure(error)
        }
        for (url, entry) in entries.sorted(by: { $0.key < $1.key }) {
            switch place(entry, places: places, device: deviceName, bring: bring, report: report) {
            case .failure(let error):
                return failing(error)
            case .success(let (path, origin)):
                if origin == .brought { brought.append(path) }
                let local = FileURL.url(forPath: path)
                guard let reference = URLReference(string: local) else {
                    return failing(HandoffError(.handoffFailed, "the document \(DocumentText.escaped(entry.location.name)) has no URL here"))
                }
                replacements[url] = reference
                origins[local] = .string(origin.rawValue)
            }
        }
        userInfo = DocumentURLs.replace(in: userInfo, replacements)
        userInfo[Self.originsKey] = .dictionary(origins)
        do {
            try activity.setUserInfo(userInfo)
            return .success(try ActivityCoding.encode(activity))
        } catch {
            if error.code == .userInfoTooLarge {
                return failing(HandoffError(.userInfoTooLarge, "with this device's paths for its documents, \(error.message)"))
            }
            return failing(error)
        }
    }

    /// A payload's activity and its documents (nil: it has none).
    struct Read {
        let activity: UserActivity
        let entries: [String: DocumentEntry]?
    }

    /// The payload's documents as §12's rules admit them: nil when it has
    /// nothing to resolve (or cannot be read: the app's own decoding then
    /// says why); malformed (4608) when its documents do not describe
    /// exactly its `file:` URLs, or when, fetched on a connection of
    /// revision 4 or later, it names `file:` URLs with no documents.
    static func read(_ payload: [UInt8], revision: Int?) -> Result<Read?, HandoffError> {
        let strict = (revision ?? 0) >= ExchangeMessage.Kind.documentOpen.revision
        guard mayHoldDocuments(payload) || (strict && DocumentSender.mayHoldFileURL(payload)),
              let (activity, kept) = try? ActivityCoding.decode(payload, keeping: [DocumentEntry.payloadKey]) else { return .success(nil) }
        let urls = DocumentURLs.find(in: activity.userInfo)
        guard let value = kept[DocumentEntry.payloadKey] else {
            if strict && !urls.isEmpty {
                return .failure(unreadable("it names \(urls.count == 1 ? "a file: URL" : "\(urls.count) file: URLs") without describing them (documents), as protocol revision \(revision!) requires"))
            }
            return .success(Read(activity: activity, entries: nil))
        }
        let entries: [String: DocumentEntry]
        do { entries = try DocumentEntry.entries(value) } catch {
            return .failure(unreadable(error.message))
        }
        guard Set(entries.keys) == urls else {
            return .failure(unreadable("its documents do not describe exactly the file URLs of its userInfo"))
        }
        return .success(Read(activity: activity, entries: entries))
    }

    /// A payload kept as it was sent (history): refused now when §12's
    /// rules refuse it, so that what is saved was admissible when fetched.
    static func check(_ payload: [UInt8], revision: Int) -> Result<[UInt8], HandoffError> {
        read(payload, revision: revision).map { _ in payload }
    }

    /// Where `entry`'s document is here, and how it got there.
    private func place(_ entry: DocumentEntry, places: DocumentPlaces, device: String,
                       bring: Bring?, report: Report?) -> Result<(String, DocumentOrigin), HandoffError> {
        let name = DocumentText.escaped(entry.location.name)
        // Over the limit first: no conforming sender describes such a file
        // (its own limit refuses it), and comparing would mean hashing
        // whatever local file has the size a peer named.
        let limit = places.settings.maxSize
        guard entry.facts.size <= limit else {
            return .failure(HandoffError(.handoffFailed,
                "the document \(name) is \(Self.megabytes(entry.facts.size)), over the \(Self.megabytes(limit)) limit for documents brought from another device (handoff settings documents max-size)"))
        }
        let slot = places.locate(entry.location)
        if let slot, Self.holds(slot, entry.facts) {
            return .success((slot.path, .same))
        }
        if let slot, entry.location.place == .syncthing || entry.location.place == .cloud {
            report?(entry, 0)  // a fetch waiting on it hears of the wait
            if DocumentSyncWait.wait(for: slot, toMatch: entry.facts, until: monotonicSeconds() + places.settings.syncWait,
                                     cancel: stop?.fd) {
                return .success((slot.path, .synced))
            }
            if isStopping {
                return .failure(HandoffError(.handoffFailed, "the handoff stopped while it waited for \(name) to sync"))
            }
        }
        guard let bring else {
            return .failure(HandoffError(.handoffFailed, "the document \(name) is not on this device, and \(DocumentText.escaped(device)) cannot send it now"))
        }
        do {
            // Beside the person's file when its folder is here (never in a
            // hidden or excluded one), else in downloads.
            // The name as sent: BroughtCopy makes it safe for a file name
            // and escapes it in its own messages.
            let copy = try BroughtCopy.start(for: slot, name: entry.location.name, device: device, places: places)
            if case .failure(let error) = bring(entry, copy) {
                copy.abandon()
                return .failure(error)
            }
            return .success((try copy.commit(), .brought))
        } catch {
            return .failure(error)
        }
    }

    /// Whether the file at `slot` has `facts`' content: its size first (a
    /// peer may name a huge file, or one on a slow mount), then its digest.
    static func holds(_ slot: DocumentSlot, _ facts: DocumentFacts) -> Bool {
        guard let fd = slot.openFile() else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size >= 0, UInt64(st.st_size) == facts.size else { return false }
        return DocumentDigest.facts(ofOpenFile: fd)?.sameContent(as: facts) == true
    }

    static func unreadable(_ message: String) -> HandoffError {
        HandoffError(.handoffFailed, "the other device sent an activity that cannot be read: \(message)")
    }

    static func megabytes(_ bytes: UInt64) -> String {
        let mib = Double(bytes) / 1_048_576
        return mib >= 10 ? "\(Int(mib.rounded())) MiB" : "\((mib * 10).rounded() / 10) MiB"
    }

    /// A payload without documents as a revision-3 sender's passes, but
    /// `HandoffDocumentOrigins` is this side's to write: a sender's own is
    /// dropped, so the app is never told a file came from where it did not.
    private static func withoutOrigins(_ activity: UserActivity, _ payload: [UInt8]) -> Result<[UInt8], HandoffError> {
        guard activity.userInfo[originsKey] != nil else { return .success(payload) }
        var userInfo = activity.userInfo
        userInfo[originsKey] = nil
        do {
            try activity.setUserInfo(userInfo)
            return .success(try ActivityCoding.encode(activity))
        } catch {
            return .failure(error)
        }
    }

    /// Whether the payload may carry the key `documents` or a userInfo key
    /// `HandoffDocumentOrigins` (a property list's strings are ASCII or
    /// UTF-16 big-endian): one without either is passed on undecoded.
    static func mayHoldDocuments(_ bytes: [UInt8]) -> Bool {
        [DocumentEntry.payloadKey, originsKey].contains { key in
            let ascii = Array(key.utf8)
            return contains(ascii, in: bytes) || contains(ascii.flatMap { [0, $0] }, in: bytes)
        }
    }

    private static func contains(_ word: [UInt8], in bytes: [UInt8]) -> Bool {
        guard bytes.count >= word.count else { return false }
        var i = 0
        while i + word.count <= bytes.count {
            if bytes[i] == word[0], bytes[i..<(i + word.count)].elementsEqual(word) { return true }
            i += 1
        }
        return false
    }
}
