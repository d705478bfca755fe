// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Testing
import HandoffBase
import HandoffModel
import HandoffTestSupport
@testable import HandoffContinuity

/// A FETCH makes the sender hash the files its payload names: a file over
/// the documents' size limit is refused by its size, never read, so a
/// peer's FETCH never costs the sender a multi-gigabyte read.
@Suite struct DocumentSizeLimitTests {
    /// A sparse file of `size` bytes (no disk used).
    static func sparse(_ path: String, _ size: Int) throws {
        try DocumentTestFolders.write(path, "")
        #expect(truncate(path, off_t(size)) == 0)
    }

    @Test func aFileOverTheLimitIsDescribedWithoutBeingRead() throws {
        try DocumentTestFolders.with { base in
            var settings = DocumentSettings()
            settings.maxSize = 1 << 20
            let places = DocumentPlaces(home: base, settings: settings)
            let digests = DocumentDigestCache()
            try Self.sparse(base + "/huge.iso", 8 << 30)  // 8 GiB
            do {
                _ = try places.describe(path: base + "/huge.iso", digests: digests)
                Issue.record("a file over the limit was described")
            } catch let error as HandoffError {
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains("8192 MiB, over the 1.0 MiB limit"), "\(error.message)")
            }
            #expect(digests.hashes == 0, "the file over the limit was read")
            // At the limit: described, read once.
            try Self.sparse(base + "/at-limit.bin", 1 << 20)
            let described = try places.describe(path: base + "/at-limit.bin", digests: digests)
            #expect(described.facts.size == 1 << 20)
            #expect(digests.hashes == 1)
        }
    }

    /// Through the sender, as a FETCH would: the refusal names the file
    /// and says why in general words; nothing was hashed.
    @Test func theSenderRefusesAFileOverTheLimit() throws {
        try DocumentTestFolders.with { base in
            var limited = DocumentSettings()
            limited.maxSize = 1000
            let settings = limited
            try Self.sparse(base + "/big.bin", 1 << 30)
            let sender = DocumentSender { DocumentPlaces(home: base, settings: settings) }
            let activity = try UserActivity(activityType: "com.example.app.edit")
            try activity.setUserInfo(["u": .url(try #require(URLReference(string: FileURL.url(forPath: base + "/big.bin"))))])
            let result = sender.describe(try ActivityCoding.encode(activity))
            guard case .failure(let error) = result else { Issue.record("described"); return }
            #expect(error.message.contains("big.bin") && error.message.contains("size limit"), "\(error.message)")
            #expect(!error.message.contains(base))
        }
    }
}
