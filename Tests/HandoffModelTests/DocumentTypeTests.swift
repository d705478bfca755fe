// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffTestSupport
import Testing
@testable import HandoffModel

// CFBundleDocumentTypes (docs/documents.md §6): an entry carrying
// NSUbiquitousDocumentUserActivityType makes its type continuable, as if
// listed in NSUserActivityTypes; what it covers is kept.

/// A document-based editor's Info.plist as CPython's plistlib writes it: two
/// document types with Handoff, one without (a viewer's PDF), one whose type
/// is not a string, and an entry that is not a dictionary.
let textEditorXML = """
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
\t<key>CFBundleDocumentTypes</key>
\t<array>
\t\t<dict>
\t\t\t<key>CFBundleTypeExtensions</key>
\t\t\t<array>
\t\t\t\t<string>rtf</string>
\t\t\t</array>
\t\t\t<key>CFBundleTypeName</key>
\t\t\t<string>Rich Text</string>
\t\t\t<key>CFBundleTypeRole</key>
\t\t\t<string>Editor</string>
\t\t\t<key>LSHandlerRank</key>
\t\t\t<string>Owner</string>
\t\t\t<key>LSItemContentTypes</key>
\t\t\t<array>
\t\t\t\t<string>public.rtf</string>
\t\t\t</array>
\t\t\t<key>NSDocumentClass</key>
\t\t\t<string>Document</string>
\t\t\t<key>NSUbiquitousDocumentUserActivityType</key>
\t\t\t<string>com.example.TextEditor.rtf</string>
\t\t</dict>
\t\t<dict>
\t\t\t<key>CFBundleTypeExtensions</key>
\t\t\t<array>
\t\t\t\t<string>txt</string>
\t\t\t\t<string>text</string>
\t\t\t</array>
\t\t\t<key>CFBundleTypeMIMETypes</key>
\t\t\t<array>
\t\t\t\t<string>text/plain</string>
\t\t\t</array>
\t\t\t<key>CFBundleTypeName</key>
\t\t\t<string>Plain Text</string>
\t\t\t<key>CFBundleTypeRole</key>
\t\t\t<string>Editor</string>
\t\t\t<key>LSItemContentTypes</key>
\t\t\t<array>
\t\t\t\t<string>public.plain-text</string>
\t\t\t\t<string>public.utf8-plain-text</string>
\t\t\t</array>
\t\t\t<key>NSUbiquitousDocumentUserActivityType</key>
\t\t\t<string>com.example.TextEditor.plain</string>
\t\t</dict>
\t\t<dict>
\t\t\t<key>CFBundleTypeName</key>
\t\t\t<string>PDF</string>
\t\t\t<key>CFBundleTypeRole</key>
\t\t\t<string>Viewer</string>
\t\t\t<key>LSItemContentTypes</key>
\t\t\t<array>
\t\t\t\t<string>com.adobe.pdf</string>
\t\t\t</array>
\t\t</dict>
\t\t<dict>
\t\t\t<key>CFBundleTypeName</key>
\t\t\t<string>Broken</string>
\t\t\t<key>NSUbiquitousDocumentUserActivityType</key>
\t\t\t<integer>7</integer>
\t\t</dict>
\t\t<string>not a dictionary</string>
\t</array>
\t<key>CFBundleIdentifier</key>
\t<string>com.example.TextEditor</string>
\t<key>CFBundleName</key>
\t<string>Text Editor</string>
\t<key>HandoffTeamIdentifier</key>
\t<string>A1B2C3D4E5</string>
\t<key>NSUserActivityTypes</key>
\t<array>
\t\t<string>com.example.TextEditor.browse</string>
\t</array>
</dict>
</plist>
"""

/// The same keys in plistlib's binary form.
let textEditorBinary = bytes(hex: "62706c6973743030d50102030405062d2e2f305f1015434642756e646c65446f63756d656e7454797065735f1012434642756e646c654964656e7469666965725c434642756e646c654e616d655f101548616e646f66665465616d4964656e7469666965725f10134e535573657241637469766974795479706573a5071824292cd708090a0b0c0d0e0f1112131416175f1016434642756e646c6554797065457874656e73696f6e735f1010434642756e646c65547970654e616d655f1010434642756e646c6554797065526f6c655d4c5348616e646c657252616e6b5f10124c534974656d436f6e74656e7454797065735f100f4e53446f63756d656e74436c6173735f10244e53556269717569746f7573446f63756d656e7455736572416374697669747954797065a110537274665952696368205465787456456469746f72554f776e6572a1155a7075626c69632e72746658446f63756d656e745f101a636f6d2e6578616d706c652e54657874456469746f722e727466d60819090a0c0e1a1d1f1220235f1015434642756e646c65547970654d494d455479706573a21b1c537478745474657874a11e5a746578742f706c61696e5a506c61696e2054657874a221225f10117075626c69632e706c61696e2d746578745f10167075626c69632e757466382d706c61696e2d746578745f101c636f6d2e6578616d706c652e54657874456469746f722e706c61696ed3090a0c2526275350444656566965776572a1285d636f6d2e61646f62652e706466d2090e2a2b5642726f6b656e10075f10106e6f7420612064696374696f6e6172795f1016636f6d2e6578616d706c652e54657874456469746f725b5465787420456469746f725a41314232433344344535a1315f101d636f6d2e6578616d706c652e54657874456469746f722e62726f77736500080013002b0040004d0065007b0081009000a900bc00cf00dd00f20104012b012d0131013b01420148014a0155015e017b018801a001a301a701ac01ae01b901c401c701db01f40213021a021e022502270235023a024102430256026f027b0286028800000000000002010000000000000032000000000000000000000000000002a8")

@Suite struct DocumentTypeTests {
    static let expected = [
        DocumentType(activityType: "com.example.TextEditor.rtf", contentTypes: ["public.rtf"], extensions: ["rtf"]),
        DocumentType(activityType: "com.example.TextEditor.plain", contentTypes: ["public.plain-text", "public.utf8-plain-text"],
                     extensions: ["txt", "text"], mimeTypes: ["text/plain"]),
    ]

    @Test("XML and binary: the document types' activity types are declared, after NSUserActivityTypes", arguments: [false, true])
    func declared(binary: Bool) throws {
        let m = try Manifest(infoPlist: binary ? textEditorBinary : Array(textEditorXML.utf8))
        #expect(m.activityTypes == ["com.example.TextEditor.browse", "com.example.TextEditor.rtf", "com.example.TextEditor.plain"])
        #expect(m.declares("com.example.TextEditor.plain"))
        #expect(m.documentTypes == Self.expected)
        #expect(m.warnings == [
            "Info.plist: CFBundleDocumentTypes[3].NSUbiquitousDocumentUserActivityType is an integer (7), not a string: skipped",
            "Info.plist: CFBundleDocumentTypes[4] is the string \"not a dictionary\", not a dictionary: skipped",
        ])
    }

    @Test("a document type alone declares a type; a declared type twice is one")
    func aloneAndTwice() throws {
        let m = try Manifest(infoPlist: xmlInfoPlist("""
            <key>CFBundleIdentifier</key><string>com.example.notes</string>
            <key>HandoffTeamIdentifier</key><string>TEAM1</string>
            <key>NSUserActivityTypes</key><array><string>com.example.notes.edit</string></array>
            <key>CFBundleDocumentTypes</key><array>
              <dict><key>NSUbiquitousDocumentUserActivityType</key><string>com.example.notes.edit</string>
                    <key>LSItemContentTypes</key><array><string>public.plain-text</string></array></dict>
            </array>
            """))
        #expect(m.activityTypes == ["com.example.notes.edit"])
        #expect(m.documentTypes.map(\.contentTypes) == [["public.plain-text"]])
        #expect(m.warnings.isEmpty)
    }

    @Test("not an array: a warning, nothing declared; a bad type: skipped with a warning")
    func malformedEntries() throws {
        let m = try Manifest(infoPlist: xmlInfoPlist("""
            <key>CFBundleIdentifier</key><string>com.example.notes</string>
            <key>HandoffTeamIdentifier</key><string>TEAM1</string>
            <key>CFBundleDocumentTypes</key><string>oops</string>
            """))
        #expect(m.activityTypes.isEmpty)
        #expect(m.warnings == ["Info.plist: CFBundleDocumentTypes is the string \"oops\", not an array: no document types are declared"])
        let n = try Manifest(infoPlist: xmlInfoPlist("""
            <key>CFBundleIdentifier</key><string>com.example.notes</string>
            <key>HandoffTeamIdentifier</key><string>TEAM1</string>
            <key>CFBundleDocumentTypes</key><array>
              <dict><key>NSUbiquitousDocumentUserActivityType</key><string></string></dict>
              <dict><key>NSUbiquitousDocumentUserActivityType</key><string>com.example.ok</string>
                    <key>CFBundleTypeExtensions</key><array><string>txt</string><integer>1</integer></array></dict>
            </array>
            """))
        #expect(n.activityTypes == ["com.example.ok"])
        #expect(n.documentTypes.first?.extensions == ["txt"])
        #expect(n.warnings.count == 2, "\(n.warnings)")
    }
}
