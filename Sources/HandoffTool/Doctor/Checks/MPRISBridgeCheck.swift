// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
import HandoffBridges
#endif

/// The MPRIS bridge's last state (docs/mpris.md): why nothing is offered,
/// from `$XDG_RUNTIME_DIR/handoff/mpris-status`. No file: the bridge has not
/// run in this session, nothing to say. The messages are not translated
/// yet (plain strings, not in po/handoff.pot).
enum MPRISBridgeCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        var environment: [String: String] = [:]
        if let dir = getenv("XDG_RUNTIME_DIR") { environment["XDG_RUNTIME_DIR"] = String(cString: dir) }
        guard let line = MPRISStatusFile.read(environment: environment) else { return [] }
        let state = field("state", in: line)
        if state == "offered" {
            let title = field("title", in: line) ?? ""
            return [.ok("mpris", "the MPRIS bridge offers \"\(title)\"")]
        }
        let reason = field("reason", in: line) ?? "no reason recorded"
        return [.warn("mpris", "the MPRIS bridge offers nothing: \(reason)",
                      todo: "play a track under your home directory, or from an http(s) or player-supported URL (docs/mpris.md)")]
    }

    /// The string value of `key` in the bridge's one-line JSON object (the
    /// bridge writes it; escapes \" \\ \n \t \uXXXX undone, others kept).
    static func field(_ key: String, in line: String) -> String? {
        let marker = "\"\(key)\":\""
        let bytes = Array(line.utf8), needle = Array(marker.utf8)
        guard bytes.count >= needle.count,
              let at = (0...(bytes.count - needle.count)).first(where: { bytes[$0..<($0 + needle.count)].elementsEqual(needle) })
        else { return nil }
        var out = ""
        var scalars = String(decoding: bytes[(at + needle.count)...], as: UTF8.self).unicodeScalars.makeIterator()
        while let c = scalars.next() {
            switch c {
            case "\"": return out
            case "\\":
                guard let e = scalars.next() else { return nil }
                switch e {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "u":
                    var hex = ""
                    for _ in 0..<4 { if let h = scalars.next() { hex.unicodeScalars.append(h) } }
                    if let v = UInt32(hex, radix: 16), let s = Unicode.Scalar(v) { out.unicodeScalars.append(s) }
                default: out.unicodeScalars.append(e)
                }
            default: out.unicodeScalars.append(c)
            }
        }
        return nil
    }
}
