// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import Testing

/// The `[Documents]` and `[Folder NAME]` groups of the settings file
/// (docs/documents.md §5): read, written back the same, strict about
/// their values.
@Suite struct DocumentSettingsFileTests {
    static func parse(_ text: String) throws(HandoffError) -> HandoffSettings {
        try HandoffSettings(bytes: Array(text.utf8), source: "s")
    }

    @Test func readAndWrittenBack() throws {
        let settings = try Self.parse("""
            [Documents]
            MaxSize=1048576
            SyncWait=12
            Exclude=/home/alice/Private/;/home/alice/semi\\;colon;/home/alice/back\\\\slash;
            Elsewhere=true
            Future=kept

            [Folder Papers]
            Path=/home/alice/My Papers/

            [Folder Band Scores]
            Path=/srv/scores
            """)
        let documents = settings.documents
        #expect(documents.maxSize == 1_048_576)
        #expect(documents.syncWait == 12)
        #expect(documents.exclude == ["/home/alice/Private", "/home/alice/semi;colon", "/home/alice/back\\slash"])
        #expect(documents.elsewhere)
        #expect(documents.folders == ["Papers": "/home/alice/My Papers", "Band Scores": "/srv/scores"])
        let text = settings.fileBytes
        let again = try HandoffSettings(bytes: text, source: "again")
        #expect(again == settings)
        #expect(again.fileBytes == text)
        #expect(String(decoding: text, as: UTF8.self).contains("Future=kept"))
    }

    @Test func defaultsWriteNothing() throws {
        let text = String(decoding: HandoffSettings().fileBytes, as: UTF8.self)
        #expect(!text.contains("[Documents]") && !text.contains("[Folder "))
        #expect(try Self.parse("[Documents]\n").documents == DocumentSettings())
    }

    /// A folder removed goes with what a newer version kept in its group
    /// (a group without Path would make the file unreadable).
    @Test func aRemovedFolderGoesWhole() throws {
        var settings = try Self.parse("[Folder Papers]\nPath=/p\nColour=blue\n")
        settings.documents.folders["Papers"] = nil
        let again = try HandoffSettings(bytes: settings.fileBytes, source: "again")
        #expect(again.documents.folders.isEmpty)
        #expect(!String(decoding: settings.fileBytes, as: UTF8.self).contains("Papers"))
    }

    @Test func badValuesRefuseTheFile() {
        let bad = [
            "[Documents]\nMaxSize=-1\n",
            "[Documents]\nMaxSize=9007199254740993\n",
            "[Documents]\nSyncWait=301\n",
            "[Documents]\nSyncWait=2.5\n",
            "[Documents]\nElsewhere=yes\n",
            "[Documents]\nExclude=relative/path\n",
            "[Documents]\nExclude=/a/../b\n",
            "[Folder Papers]\n",
            "[Folder Papers]\nPath=Papers\n",
            "[Folder  Papers]\nPath=/p\n",
        ]
        for text in bad {
            #expect(throws: HandoffError.self, "\(text)") { _ = try Self.parse(text) }
        }
    }

    @Test func names() {
        #expect(DocumentSettings.isFolderName("Papers"))
        #expect(DocumentSettings.isFolderName("Band Scores 2024"))
        #expect(!DocumentSettings.isFolderName(""))
        #expect(!DocumentSettings.isFolderName("Thèse"))
        #expect(!DocumentSettings.isFolderName("a]b"))
        #expect(!DocumentSettings.isFolderName(" a"))
    }
}
