// SPDX-License-Identifier: MIT OR Apache-2.0
/// Checks for the identifiers that travel between devices. They are kept
/// strict so that what one device accepts, every device accepts.
public enum Identifier {
    /// Longest activity type or bundle identifier, in UTF-8 bytes.
    static let maxLength = 255

    /// Reverse-DNS: at least two dot-separated labels of ASCII letters,
    /// digits, `-` and `_`, e.g. `com.example.shapes.create-shape`.
    static func isReverseDNS(_ s: String) -> Bool {
        let bytes = Array(s.utf8)
        guard !bytes.isEmpty, bytes.count <= maxLength else { return false }
        var labels = 0
        var labelLength = 0
        for b in bytes {
            if b == UInt8(ascii: ".") {
                guard labelLength > 0 else { return false }
                labels += 1
                labelLength = 0
            } else if isLabelByte(b) {
                labelLength += 1
            } else {
                return false
            }
        }
        guard labelLength > 0 else { return false }
        return labels + 1 >= 2
    }

    /// Team identifiers: 1 to 32 ASCII letters and digits (Apple's are 10).
    static func isTeamIdentifier(_ s: String) -> Bool {
        let bytes = Array(s.utf8)
        return (1...32).contains(bytes.count) && bytes.allSatisfy(isAlphanumeric)
    }

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }

    private static func isLabelByte(_ b: UInt8) -> Bool {
        isAlphanumeric(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
    }

    /// Activity types are any 1–255-byte strings without control
    /// characters, matched exactly: Apple's apps declare reverse-DNS types
    /// (`com.example.app.edit`), intent class names (`INSendMessageIntent`)
    /// and short names (`ReadArticle`) alike. Nil when `type` is one, else
    /// what is wrong with it.
    static func activityTypeProblem(_ type: String) -> String? {
        let bytes = type.utf8
        if bytes.isEmpty { return "is empty" }
        if bytes.count > maxLength { return "is \(bytes.count) bytes long, over \(maxLength)" }
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "contains a control character" }
        return nil
    }

    public static func checkActivityType(_ type: String) throws(HandoffError) {
        if let problem = activityTypeProblem(type) {
            throw HandoffError(.invalidValue,
                "activity type \(quoted(type)) \(problem): use 1 to \(maxLength) bytes without control characters, e.g. \"com.example.app.edit-document\" or an intent class name such as \"INSendMessageIntent\"")
        }
    }

    static func checkBundleIdentifier(_ id: String) throws(HandoffError) {
        guard isReverseDNS(id) else {
            throw HandoffError(.invalidValue,
                "bundle identifier \(quoted(id)) is not a reverse-DNS string such as \"com.example.app\"")
        }
    }

    static func checkTeamIdentifier(_ id: String) throws(HandoffError) {
        guard isTeamIdentifier(id) else {
            throw HandoffError(.invalidValue,
                "team identifier \(quoted(id)) must be 1 to 32 ASCII letters and digits, e.g. \"A1B2C3D4E5\"")
        }
    }

    /// Quotes a caller's string for an error message, cut short if long.
    static func quoted(_ s: String) -> String {
        let shown = s.count > 80 ? String(s.prefix(80)) + "…" : s
        return "\"\(shown)\""
    }
}
