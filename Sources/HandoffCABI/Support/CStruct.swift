// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Reads a growable C struct that starts with its own `size_t size`
/// (libgit2's *_OPTIONS_INIT pattern): a field that lies beyond the host's
/// `size` reads as absent, so a host built against an older header keeps
/// working, and nothing past the host's struct is ever read.
struct CStruct<S> {
    private let base: UnsafeRawPointer
    private let size: Int

    /// Largest size believed: anything bigger is an unset `size` field.
    static var maxSize: Int { 4096 }

    init(_ pointer: UnsafePointer<S>, _ name: String) throws(HandoffError) {
        let raw = UnsafeRawPointer(pointer)
        let size = raw.load(as: Int.self)
        guard size >= MemoryLayout<Int>.size, size <= Self.maxSize else {
            throw HandoffError(.invalidArgument, "\(name).size is \(size): initialise the struct with its _INIT macro")
        }
        base = raw
        self.size = size
    }

    /// The field at `path`, or nil when the host's struct ends before it.
    func field<T>(_ path: KeyPath<S, T>) -> T? {
        guard let offset = MemoryLayout<S>.offset(of: path),
              offset + MemoryLayout<T>.size <= size else { return nil }
        return base.load(fromByteOffset: offset, as: T.self)
    }
}
