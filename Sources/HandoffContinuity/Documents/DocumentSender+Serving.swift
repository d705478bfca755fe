// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

extension DocumentSender {
    /// Answers DOCUMENT_OPEN for the document of activity `id` with hash
    /// `sha256` (PROTOCOL.md §12): the bytes of a file this device
    /// described in a payload it sent, as long as it is still the file
    /// described, as it was (`DescribedDocument.isUnchanged`). Returns whether the connection can serve
    /// more requests: true after a refusal, false after the bytes (the
    /// connection then ends; without END when the file did not read back as
    /// described).
    func serve(_ id: ActivityID, sha256: [UInt8], on connection: ChannelConnection, timeout: Double) -> Bool {
        func refuse(_ message: String) -> Bool {
            let error = ExchangeMessage.error(code: HandoffError.Code.handoffFailed.rawValue, message: message)
            return (try? connection.send(error.frame, timeout: timeout)) != nil
        }
        guard let document = offers.document(id, sha256: sha256) else { return refuse("the document is not offered") }
        let name = DocumentText.escaped(document.location.name)
        // O_NONBLOCK: a FIFO swapped in for the file must not hold this
        // thread in open(2) (isUnchanged then refuses it); a regular
        // file's reads ignore the flag.
        let fd = open(document.resolvedPath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return refuse("the document \(name) can no longer be read") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, document.isUnchanged(st) else {
            return refuse("the document \(name) changed since it was offered")
        }
        do throws(HandoffError) {
            try connection.send(ExchangeMessage.documentAccepted(size: document.facts.size).frame, timeout: timeout)
            let digest = SHA256Stream()
            var sent: UInt64 = 0
            var chunk = [UInt8](repeating: 0, count: StreamFrame.maxDataPerFrame)
            while sent < document.facts.size {
                let want = Int(min(UInt64(chunk.count), document.facts.size - sent))
                let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(sent)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                let piece = Array(chunk[0..<n])
                piece.withUnsafeBytes { digest.update($0) }
                try connection.send(Frame(type: StreamFrame.data, payload: piece), timeout: timeout)
                sent += UInt64(n)
            }
            // Changed while it was read: the receiver must not keep it.
            guard sent == document.facts.size, digest.finish() == document.facts.sha256 else {
                connection.abort()
                return false
            }
            try connection.send(Frame(type: StreamFrame.end, payload: []), timeout: timeout)
        } catch {
            return false
        }
        return false
    }
}
