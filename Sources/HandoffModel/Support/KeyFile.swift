// SPDX-License-Identifier: MIT OR Apache-2.0

/// A file in the freedesktop "key file" syntax (the Desktop Entry
/// Specification's "Basic format of the file", GLib's GKeyFile): groups in
/// file order, each with its `Key=Value` lines, values kept as written
/// until a reader decodes them. Desktop entries (the agent) and the
/// person's settings file (`HandoffSettings`) are both read through
/// `KeyFileParser` into this.
public struct KeyFile: Sendable {
    /// One `Key=Value` line: the value as written (after the spaces around
    /// `=` and at its end are dropped) and where it was.
    public struct Value: Sendable {
        public var text: Substring
        public var line: Int

        public init(text: Substring, line: Int) {
            self.text = text
            self.line = line
        }
    }

    /// Names the file in messages (its path, or what the caller passed).
    public let source: String
    /// Group names in file order.
    public let groupNames: [String]
    /// Keys of each group, full names including any `[locale]` suffix.
    public let groups: [String: [String: Value]]

    public init(source: String, groupNames: [String], groups: [String: [String: Value]]) {
        self.source = source
        self.groupNames = groupNames
        self.groups = groups
    }

    /// A value for messages: quoted, cut at 80 characters.
    public static func quoted(_ text: String) -> String {
        let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
        return "\"\(shown)\""
    }
}
