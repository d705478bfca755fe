// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffTestSupport
import Testing
@testable import HandoffModel

/// Replays the checked-in regression corpus (Tests/fuzz/regressions/<target>/:
/// inputs the fuzzers found and hand-made hostile ones, see
/// Tests/fuzz/tools/seeds.swift) through the decoders the fuzz targets call,
/// without fuzzing. Each input must give a value or a thrown error, never a
/// trap, and each file named for an attack must be refused.
@Suite struct FuzzRegressionTests {
    @Test(arguments: FuzzCorpus.names("bplist"))
    func binaryPropertyList(_ name: String) throws {
        let bytes = try FuzzCorpus.read("bplist", name)
        guard let value = try? BinaryPropertyList.decode(bytes) else { return }
        #expect(!FuzzCorpus.mustBeRefused(name, in: "bplist"), "\(name) was accepted")
        _ = value
    }

    /// Anything accepted encodes within the budget, and decoding that
    /// encoding gives the same value (compared by its canonical bytes) and
    /// the same encoding: the property the userinfo fuzz target checks.
    @Test(arguments: FuzzCorpus.names("userinfo"))
    func userInfo(_ name: String) throws {
        let bytes = try FuzzCorpus.read("userinfo", name)
        let userInfo: UserInfo
        do {
            userInfo = try UserInfoCoding.decode(bytes)
        } catch {
            #expect([.malformedData, .userInfoTooLarge].contains(error.code), "\(name): \(error)")
            return
        }
        #expect(!FuzzCorpus.mustBeRefused(name, in: "userinfo"), "\(name) was accepted")
        let encoded = UserInfoCoding.encode(userInfo)
        #expect(encoded.count <= UserInfoRules.payloadBudget, "\(name) encodes to \(encoded.count) bytes")
        do {
            let again = try UserInfoCoding.decode(encoded)
            #expect(UserInfoCoding.encode(again) == encoded, "\(name) changed through encode and decode")
        } catch {
            Issue.record("\(name) was accepted, but its encoding is refused: \(error)")
        }
    }

    /// The same for activity payloads (the activity fuzz target's property):
    /// an accepted activity encodes, its userInfo within the budget and the
    /// payload within the payload limit, to a payload that decodes to the
    /// same encoding.
    @Test(arguments: FuzzCorpus.names("activity"))
    func activityPayload(_ name: String) throws {
        let bytes = try FuzzCorpus.read("activity", name)
        let activity: UserActivity
        do {
            activity = try ActivityCoding.decode(bytes)
        } catch {
            #expect([.malformedData, .userInfoTooLarge].contains(error.code), "\(name): \(error)")
            return
        }
        #expect(!FuzzCorpus.mustBeRefused(name, in: "activity"), "\(name) was accepted")
        let encoded: [UInt8]
        do {
            encoded = try ActivityCoding.encode(activity)
        } catch {
            Issue.record("\(name) was accepted, but does not encode: \(error)")
            return
        }
        #expect(UserInfoCoding.encode(activity.userInfo).count <= UserInfoRules.payloadBudget, "\(name)")
        #expect(encoded.count <= ActivityCoding.maxPayloadSize, "\(name)")
        do {
            let again = try ActivityCoding.decode(encoded)
            #expect(try ActivityCoding.encode(again) == encoded, "\(name) changed through encode and decode")
        } catch {
            Issue.record("\(name) was accepted, but its encoding is refused: \(error)")
        }
    }

    /// Broken or hostile Info.plists: each gives HANDOFF_E_MALFORMED_DATA
    /// (the header's promise), never a trap. A few are well-formed plists
    /// whose hostile part (a bomb or deep nesting inside NSUserActivityTypes)
    /// a reader may refuse or skip: those may also give a manifest.
    @Test(arguments: FuzzCorpus.names("manifest"))
    func manifest(_ name: String) throws {
        let bytes = try FuzzCorpus.read("manifest", name)
        do {
            let manifest = try Manifest(infoPlist: bytes)
            let skippable = ["bomb-", "deep-", "xml-deep-", "cycle"].contains { name.hasPrefix($0) }
            #expect(skippable || FuzzCorpus.foundByFuzzer(name), "\(name) was accepted")
            #expect(manifest.bundleIdentifier == "com.example.x" || !skippable)
        } catch {
            #expect(error.code == .malformedData, "\(name): \(error)")
        }
        // The manifest target's property: the Info.plist reader accepts what
        // the strict reader (payloads) accepts, the same, with no repeat.
        let strict = BinaryPropertyList.hasMagic(bytes) ? try? BinaryPropertyList.decode(bytes)
            : XMLPropertyList.looksLikeXML(bytes) ? try? XMLPropertyList.decode(bytes) : nil
        if let strict {
            let lenient = try PropertyListFile.decode(bytes)
            #expect(lenient.repeats.isEmpty, "\(name)")
            #expect(BinaryPropertyList.encode(lenient.value) == BinaryPropertyList.encode(strict), "\(name)")
        }
    }

    @Test func theCorpusIsThere() {
        for target in ["bplist", "userinfo", "activity", "manifest"] {
            #expect(FuzzCorpus.names(target).count >= 10, "Tests/fuzz/regressions/\(target) is missing")
        }
    }
}

extension FuzzCorpus {
    /// Hand-made attacks are named for what they do.
    static func mustBeRefused(_ name: String, in target: String) -> Bool {
        let attacks = ["bomb-", "deep-10000", "deep-65", "cycle", "count-", "int-16-bytes", "trailer-", "string-",
                       "grows-over-", "required-key-missing"]
        // The reader alone may build what its limits allow (the 1000×1000
        // bomb stays under maxObjects); the payload decoders may not.
        if target == "bplist" && name.hasPrefix("bomb-1000x1000") { return false }
        return attacks.contains { name.hasPrefix($0) }
    }
}
