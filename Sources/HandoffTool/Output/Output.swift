// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Where the tool writes: results and events on stdout (human text, or one
/// JSON object per line with --json), notes and errors on stderr.
struct Output {
    let json: Bool

    /// A result or an event: `object` with --json, else `human` (nothing
    /// when `human` is empty: some events are for scripts only).
    func emit(_ object: JSON, human: @autoclosure () -> String) {
        if json {
            write(object.text + "\n")
        } else {
            let text = human()
            if !text.isEmpty { write(text + "\n") }
        }
    }

    /// Text to stdout as it is.
    func write(_ text: String) {
        Self.write(text, to: 1)
    }

    /// Progress and hints for a person: stderr, and only without --json.
    func note(_ text: String) {
        guard !json else { return }
        Self.write(text + "\n", to: 2)
    }

    /// Something the person should know even when a script runs the tool.
    func warning(_ text: String) {
        Self.write("handoff: warning: \(text)\n", to: 2)
    }

    /// A failure: on stderr, and with --json also as {"error": ...} on stdout.
    func failure(_ error: HandoffError) {
        if json { emit(["error": Self.errorObject(error)], human: "") }
        let number = error.code.rawValue
        Self.write("handoff: error \(number) (\(Self.codeName(error.code))): \(error.message)\n", to: 2)
    }

    func usageError(_ error: UsageError) {
        if json {
            emit(["error": ["code": .int(Int64(ExitCode.usage)), "name": "usage", "message": .string(error.message)]],
                 human: "")
        }
        Self.write("handoff: \(error.message) (\(error.hint))\n", to: 2)
    }

    /// Text to stderr as it is (the agent's log lines).
    static func writeError(_ text: String) {
        write(text, to: 2)
    }

    /// All of `text` to a descriptor, unbuffered: a reader of a pipe sees
    /// each event when it happens (and a terminal's prompt shows at once).
    static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            bytes = bytes.dropFirst(n)
        }
    }

    static func errorObject(_ error: HandoffError) -> JSON {
        ["code": .int(Int64(error.code.rawValue)), "name": .string(codeName(error.code)), "message": .string(error.message)]
    }

    /// Apple's names for its codes, the library's for its own.
    static func codeName(_ code: HandoffError.Code) -> String {
        switch code {
        case .handoffFailed: "HandoffFailed"
        case .connectionUnavailable: "ConnectionUnavailable"
        case .remoteApplicationTimedOut: "RemoteApplicationTimedOut"
        case .userInfoTooLarge: "HandoffUserInfoTooLarge"
        default: code.name
        }
    }
}


