// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The pairing code as a QR code for a terminal, drawn by Debian's
/// `qrencode` tool (a well-kept QR encoder; no QR code is written here).
/// The text goes to it on standard input, never as an argument: the
/// process list must not show the secret.
enum QRCode {
    /// What qrencode may print at most: a version-3 code is 29 modules,
    /// about 2 KiB as UTF-8 blocks; anything far larger is not its output.
    static let maxOutput = 64 * 1024
    static let timeout = 5.0

    /// The QR code drawn with Unicode half blocks (ANSI colours on a
    /// terminal, so it scans on dark and light themes alike), ending in a
    /// newline. Throws `.notFound` when qrencode is not on PATH, `.io`
    /// when it fails.
    static func draw(_ text: String, forTerminal: Bool) throws(HandoffError) -> String {
        guard let tool = findOnPath("qrencode") else {
            throw HandoffError(.notFound,
                "--qr needs the qrencode tool, which is not installed (on PATH): install it "
                    + "(Debian/Ubuntu: apt install qrencode), or run `handoff account code` without --qr for the code as text")
        }
        // -t: the drawing; -m 2: a quiet zone scanners accept; -l M: 15 % error correction.
        let arguments = ["-t", forTerminal ? "ANSIUTF8" : "UTF8", "-m", "2", "-l", "M", "-o", "-"]
        let run = BoundedRun.run(tool, arguments, environment: ["LC_ALL=C.UTF-8"], input: Array(text.utf8),
                                 timeout: timeout, limit: maxOutput)
        let done: BoundedRun
        switch run {
        case .success(let value): done = value
        case .failure(let failure): throw HandoffError(.io, failure.reason)
        }
        let drawing = done.killed ? nil : String(decoding: done.output, as: UTF8.self)
        guard done.status == 0, let drawing, !drawing.isEmpty else {
            throw HandoffError(.io, "\(tool) could not draw the QR code (\(drawing.map { $0.trimmingWhitespace } ?? "no answer in time")): "
                + "run `handoff account code` without --qr for the code as text")
        }
        return drawing.hasSuffix("\n") ? drawing : drawing + "\n"
    }

    /// PATH only: a person who took qrencode off PATH means it.
    private static func findOnPath(_ name: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? ""
        for folder in path.split(separator: ":") where folder.hasPrefix("/") {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
