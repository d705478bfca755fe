// SPDX-License-Identifier: MIT OR Apache-2.0
import CSystemd

/// File descriptors (`h`) and byte arrays (`ay`, a path as the document
/// portal writes one) in a method call and its reply.
extension MessageWriter {
    /// `h`: sd-bus duplicates `fd` into the message (close-on-exec), so the
    /// caller keeps and closes its own. The connection passes it only when
    /// both ends negotiated descriptor passing (a session bus does).
    public func unixFD(_ fd: Int32) throws(DBusError) {
        var v = fd
        try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "h")), &v), "append file descriptor")
    }

    /// `ah`
    public func unixFDs(_ fds: [Int32]) throws(DBusError) {
        try enter("a", "h")
        for fd in fds { try unixFD(fd) }
        try leave()
    }
}

extension MessageReader {
    /// `ay`, at most `limit` bytes (more is an error: nothing is cut).
    public func bytes(limit: Int) throws(DBusError) -> [UInt8] {
        var pointer: UnsafeRawPointer?
        var size = 0
        try check(sd_bus_message_read_array(message, CChar(UInt8(ascii: "y")), &pointer, &size), "read byte array")
        guard size <= limit else { throw DBusError(.invalidArgument, "a byte array of \(size) bytes, over \(limit)") }
        guard let pointer, size > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: size))
    }
}
