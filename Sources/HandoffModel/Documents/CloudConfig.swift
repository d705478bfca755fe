// SPDX-License-Identifier: MIT OR Apache-2.0

/// One Nextcloud/ownCloud sync folder of this device: the account
/// (`USER@HOST`, the host lowercase, with its port when the URL has one),
/// the folder on the server it mirrors and where it is here.
public struct CloudFolder: Sendable, Hashable {
    public var account: String
    /// The folder on the server: `/`, or `/`-led with no trailing `/` and
    /// no empty, `.` or `..` component.
    public var remote: String
    /// Absolute, no trailing `/`.
    public var path: String

    public init(account: String, remote: String, path: String) {
        self.account = account
        self.remote = remote
        self.path = path
    }

    /// The root on the wire: `USER@HOST/REMOTE-FOLDER` (`USER@HOST` for
    /// the server's top folder).
    public var root: String { remote == "/" ? account : account + remote }
}

/// Reads a Nextcloud or ownCloud desktop client's `nextcloud.cfg` /
/// `owncloud.cfg` (docs/documents.md §2), Qt's ini syntax: in
/// `[Accounts]`, per account `N\url`, `N\dav_user` (else
/// `N\webflow_user`, `N\user`), per folder `N\Folders\M\localPath` and
/// `N\Folders\M\targetPath` (also under `FoldersWithPlaceholders` and
/// `Multifolders`, where the clients keep virtual-file and older folders).
/// Values are Qt's: optionally quoted, `\` escapes (`\x` in hex), a
/// leading `@@` for `@`. Not the settings' key-file lexer: Qt writes
/// backslashes in keys, quotes, CRLF on some systems and keys in any
/// order. A folder without an account, user, host or usable paths is left
/// out. Bounded: the file's size, its lines, the folders kept.
public enum CloudConfig {
    public static let maxBytes = 1 << 20
    public static let maxLines = 16_384
    public static let maxFolders = 1024
    static let folderGroups = ["Folders", "FoldersWithPlaceholders", "Multifolders"]

    /// The folders of a config's bytes.
    /// - Throws: `.malformedData` for a file over the bounds or not UTF-8.
    public static func folders(_ bytes: [UInt8]) throws(HandoffError) -> [CloudFolder] {
        guard bytes.count <= maxBytes else {
            throw HandoffError(.malformedData, "\(bytes.count) bytes, over the \(maxBytes)-byte limit")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw HandoffError(.malformedData, "not valid UTF-8")
        }
        var values: [String: String] = [:]
        var group = ""
        var lines = 0
        // "\r\n" is one Character: split on it too.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lines += 1
            guard lines <= maxLines else { throw HandoffError(.malformedData, "more than \(maxLines) lines") }
            var line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasSuffix("\r") { line = line.dropLast() }
            if line.isEmpty || line.hasPrefix(";") || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                group = line.hasSuffix("]") ? String(line.dropFirst().dropLast()) : ""
                continue
            }
            guard group == "Accounts", let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingSpaces
            guard values[key] == nil, let value = unescape(line[line.index(after: equals)...]) else { continue }
            values[key] = value
        }
        return assemble(values)
    }

    /// `N\key` and `N\Folders\M\key` pairs into folders, sorted by account
    /// then folder number (the file's order is Qt's, not the person's).
    static func assemble(_ values: [String: String]) -> [CloudFolder] {
        var folders: [(order: [Int], folder: CloudFolder)] = []
        for (key, local) in values where key.hasSuffix("\\localPath") {
            let parts = key.split(separator: "\\", omittingEmptySubsequences: false)
            guard parts.count == 4, let n = Int(parts[0]), folderGroups.contains(String(parts[1])), let m = Int(parts[2]),
                  let target = values["\(parts[0])\\\(parts[1])\\\(parts[2])\\targetPath"],
                  let account = account(values, String(parts[0])),
                  let remote = remoteFolder(target),
                  let path = DocumentRoots.expand(local, home: nil) else { continue }
            let groupIndex = folderGroups.firstIndex(of: String(parts[1]))!
            folders.append(([n, groupIndex, m], CloudFolder(account: account, remote: remote, path: path)))
            if folders.count >= maxFolders { break }
        }
        return folders.sorted { $0.order.lexicographicallyPrecedes($1.order) }.map(\.folder)
    }

    /// `USER@HOST` of account `n`: the user without control characters or
    /// `/`, the URL's host lowercase (and `:PORT` when given).
    static func account(_ values: [String: String], _ n: String) -> String? {
        guard let url = values[n + "\\url"], let host = host(ofURL: url) else { return nil }
        let user = [n + "\\dav_user", n + "\\webflow_user", n + "\\user"].lazy.compactMap { values[$0] }.first { !$0.isEmpty }
        guard let user, !user.contains("/"), !user.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        return user + "@" + host
    }

    /// `https://User@Cloud.Example.com:8443/nextcloud` → `cloud.example.com:8443`.
    public static func host(ofURL url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        var authority = url[url.index(colon, offsetBy: 3)...]
        if let end = authority.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { authority = authority[..<end] }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host = authority.lowercased()
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) else { return nil }
        return host.hasSuffix(":443") && url.lowercased().hasPrefix("https:") ? String(host.dropLast(4)) : host
    }

    /// A server folder as `/` or `/a/b`: empty components dropped, `.` and
    /// `..` refused.
    public static func remoteFolder(_ target: String) -> String? {
        let parts = target.split(separator: "/")
        guard !parts.contains(where: { $0 == "." || $0 == ".." }), !target.utf8.contains(where: { $0 < 0x20 }) else { return nil }
        return "/" + parts.joined(separator: "/")
    }

    /// A Qt ini value: trimmed, `"…"` quoting, `\` escapes, `@@` for `@`;
    /// nil for a list (an unquoted `,`) or a typed value (`@Variant(…)`).
    static func unescape(_ raw: Substring) -> String? {
        var text = raw.trimmingSpaces[...]
        if text.hasPrefix("@@") { text = text.dropFirst() } else if text.hasPrefix("@") { return nil }
        var out: [UInt16] = []
        var quoted = false
        var index = text.utf16.startIndex
        let units = text.utf16
        func next() -> UInt16? {
            guard index < units.endIndex else { return nil }
            defer { index = units.index(after: index) }
            return units[index]
        }
        while let unit = next() {
            switch unit {
            case 0x22:  // "
                quoted.toggle()
            case 0x2C:  // ,
                guard quoted else { return nil }
                out.append(unit)
            case 0x5C:  // a backslash
                guard let escaped = next() else { break }
                switch escaped {
                case 0x6E: out.append(10)  // \n
                case 0x74: out.append(9)  // \t
                case 0x72: out.append(13)  // \r
                case 0x78:  // \x
                    var value: UInt32 = 0, digits = 0
                    while digits < 4, index < units.endIndex, let digit = hexDigit(units[index]) {
                        value = value << 4 | digit
                        digits += 1
                        index = units.index(after: index)
                    }
                    guard digits > 0 else { return nil }
                    out.append(UInt16(value))
                default: out.append(escaped)
                }
            default:
                out.append(unit)
            }
        }
        return String(decoding: out, as: UTF16.self)
    }

    private static func hexDigit(_ unit: UInt16) -> UInt32? {
        switch unit {
        case 0x30...0x39: UInt32(unit - 0x30)
        case 0x41...0x46: UInt32(unit - 0x41 + 10)
        case 0x61...0x66: UInt32(unit - 0x61 + 10)
        default: nil
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        var text = self.drop { $0 == " " || $0 == "\t" }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
