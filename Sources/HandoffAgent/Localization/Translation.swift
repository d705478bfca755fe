// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux

// The two marking functions xgettext looks for (mk/l10n.mk: --keyword=tr
// --keyword=trn:1,2). A StaticString takes only a plain literal, so a
// marked text cannot carry `\(…)`: values go into named fields, `{name}`,
// filled after translation (translators may move them). A translation
// whose fields differ from the English is not used: the English is
// (docs/TRANSLATING.md), so a bad catalogue never loses a value or crashes.

/// `msgid` translated, its `{name}` fields filled from `fields`.
public func tr(_ msgid: StaticString, _ fields: KeyValuePairs<String, String> = [:]) -> String {
    let english = text(of: msgid)
    guard !english.isEmpty else { return "" }  // dgettext("") is the catalogue's header
    let translated = !Localization.translating ? english
        : lookUp(english) { pointer -> UnsafeMutablePointer<CChar>? in dgettext(Localization.domain, pointer) }
    let values = Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    if translated != english, PlaceholderFields.names(in: translated) == PlaceholderFields.names(in: english),
       let filled = PlaceholderFields.fill(translated, values) {
        return filled
    }
    return PlaceholderFields.fill(english, values) ?? english
}

/// The form of `singular`/`plural` for `count` in the person's language
/// (a language may have more than two forms), fields filled. A form may
/// leave out a field (German "ein Gerät"), never add one the English lacks.
public func trn(_ singular: StaticString, _ plural: StaticString, _ count: Int,
                _ fields: KeyValuePairs<String, String> = [:]) -> String {
    let one = text(of: singular), many = text(of: plural)
    let english = count == 1 ? one : many
    let n = UInt(clamping: count < 0 ? -count : count)
    let translated = !Localization.translating ? english : one.withCString { singular in
        many.withCString { plural in
            // Untranslated, dngettext returns one of the two pointers it was given.
            let answer: UnsafeMutablePointer<CChar>? = dngettext(Localization.domain, singular, plural, n)
            guard let found = answer.map({ UnsafePointer<CChar>($0) }), found != singular, found != plural else { return english }
            return String(cString: found)
        }
    }
    let values = Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    let allowed = PlaceholderFields.names(in: one).union(PlaceholderFields.names(in: many))
    if translated != english, PlaceholderFields.names(in: translated).isSubset(of: allowed),
       let filled = PlaceholderFields.fill(translated, values) {
        return filled
    }
    return PlaceholderFields.fill(english, values) ?? english
}

/// gettext's answer for `msgid`. Untranslated, it returns the very pointer
/// it was given, which lives only during the call here: the English then,
/// never a read of that pointer after it.
private func lookUp(_ msgid: String, _ gettext: (UnsafePointer<CChar>) -> UnsafeMutablePointer<CChar>?) -> String {
    msgid.withCString { pointer in
        guard let found = gettext(pointer), UnsafePointer(found) != pointer else { return msgid }
        return String(cString: found)
    }
}

private func text(of literal: StaticString) -> String {
    literal.hasPointerRepresentation ? literal.description : String(literal.unicodeScalar)
}
