// SPDX-License-Identifier: MIT OR Apache-2.0
/// Substring search without the regex module (`_StringProcessing`), which
/// libhandoff.so does not link: the same answer as its `contains(_:)`,
/// which compares whole Characters (so "$(" is not in "$(\u{301}", where
/// the parenthesis carries an accent).
extension StringProtocol {
    public func containsCharacters(_ needle: some StringProtocol) -> Bool {
        let needle = Array(needle)
        guard !needle.isEmpty else { return true }
        let haystack = Array(self)
        guard haystack.count >= needle.count else { return false }
        for start in 0 ... haystack.count - needle.count where haystack[start] == needle[0] {
            if haystack[start ..< start + needle.count].elementsEqual(needle) { return true }
        }
        return false
    }
}
