// SPDX-License-Identifier: MIT OR Apache-2.0
import Testing
@testable import HandoffAgent

// The `{name}` fields of marked texts and what tr/trn give when no
// catalogue answers (this process binds none): the English, filled. The
// translated side is Tests/l10n's (the real tool, a real catalogue).

@Suite struct TranslationTests {
    @Test func fieldNamesAreLettersDigitsAndUnderscores() {
        #expect(PlaceholderFields.names(in: "{a} and {b_2}, {a} again") == ["a", "b_2"])
        #expect(PlaceholderFields.names(in: "{} { } {x y} {ü} {a-b} {") == [])
        #expect(PlaceholderFields.names(in: "{{a}}") == ["a"])
        #expect(PlaceholderFields.names(in: "JSON: {\"k\": 1}") == [])
    }

    @Test func fillingIsOnePassAndKeepsOtherBraces() {
        #expect(PlaceholderFields.fill("{a}-{b}", ["a": "{b}", "b": "x"]) == "{b}-x")
        #expect(PlaceholderFields.fill("{{a}} {x y}", ["a": "1"]) == "{1} {x y}")
        #expect(PlaceholderFields.fill("no fields", [:]) == "no fields")
        #expect(PlaceholderFields.fill("{a} {b}", ["a": "1"]) == nil)
        #expect(PlaceholderFields.fill("…{a}…", ["a": "ä"]) == "…ä…")
    }

    @Test func untranslatedTextsAreTheEnglishFilled() {
        // Many times: gettext hands back the pointer it was given when it
        // has no translation, which must never be read after the call.
        for round in 0..<2000 {
            let code = "\(round % 1000) \(round)"
            #expect(tr("Compare: {code}", ["code": code]) == "Compare: \(code)")
            #expect(tr("Continue") == "Continue")
        }
        #expect(tr("{title} (from {device})", ["device": "B", "title": "T"]) == "T (from B)")
    }

    @Test func aMissingValueLeavesTheTextAsItIs() {
        #expect(tr("Paired with {device}") == "Paired with {device}")
    }

    @Test(arguments: [(0, "0 devices"), (1, "one device"), (2, "2 devices"), (-1, "-1 devices")])
    func pluralsChooseTheEnglishForm(count: Int, expected: String) {
        #expect(trn("one device", "{count} devices", count, ["count": "\(count)"]) == expected)
    }
}
