// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HandoffModel

/// Reading C arguments and making C results.
enum CArgument {
    /// A required UTF-8 string argument.
    /// - Throws: `.invalidArgument` for NULL, `.invalidValue` for invalid UTF-8.
    static func string(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(HandoffError) -> String {
        guard let pointer else {
            throw HandoffError(.invalidArgument, "\(name) is NULL; pass a NUL-terminated UTF-8 string")
        }
        guard let s = String(validatingCString: pointer) else {
            throw HandoffError(.invalidValue, "\(name) is not valid UTF-8")
        }
        return s
    }

    /// An optional UTF-8 string argument: NULL means "none".
    static func optionalString(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(HandoffError) -> String? {
        guard pointer != nil else { return nil }
        return try string(pointer, name)
    }

    /// A required handle argument.
    static func handle(_ pointer: OpaquePointer?, _ name: String) throws(HandoffError) -> OpaquePointer {
        guard let pointer else { throw HandoffError(.invalidArgument, "\(name) is NULL") }
        return pointer
    }

    /// A required out-parameter.
    static func out<T>(_ pointer: UnsafeMutablePointer<T>?, _ name: String) throws(HandoffError) -> UnsafeMutablePointer<T> {
        guard let pointer else { throw HandoffError(.invalidArgument, "\(name) is NULL; pass where to store the result") }
        return pointer
    }

    /// `count` strings from a C array; NULL is allowed only for count 0.
    static func strings(_ array: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ name: String) throws(HandoffError) -> [String] {
        guard count >= 0 else { throw HandoffError(.invalidArgument, "count of \(name) is out of range") }
        guard count > 0 else { return [] }
        guard let array else { throw HandoffError(.invalidArgument, "\(name) is NULL but count is \(count)") }
        var result: [String] = []
        result.reserveCapacity(count)
        for i in 0..<count {
            result.append(try string(array[i], "\(name)[\(i)]"))
        }
        return result
    }

    /// `length` bytes at `bytes`; NULL is allowed only for length 0.
    static func bytes(_ bytes: UnsafeRawPointer?, _ length: Int, _ name: String) throws(HandoffError) -> [UInt8] {
        guard length >= 0 else { throw HandoffError(.invalidArgument, "length of \(name) is out of range") }
        guard length > 0 else { return [] }
        guard let bytes else { throw HandoffError(.invalidArgument, "\(name) is NULL but length is \(length)") }
        return [UInt8](UnsafeRawBufferPointer(start: bytes, count: length))
    }
}

/// Memory handed to C.
enum CMemory {
    /// A malloc'd, NUL-terminated copy of the string's UTF-8 bytes (embedded
    /// NULs kept; the length is the UTF-8 count).
    static func string(_ s: String) -> UnsafeMutablePointer<CChar> {
        var s = s
        return s.withUTF8 { utf8 in
            let p = allocate(utf8.count + 1).assumingMemoryBound(to: CChar.self)
            if let base = utf8.baseAddress {
                UnsafeMutableRawPointer(p).copyMemory(from: base, byteCount: utf8.count)
            }
            p[utf8.count] = 0
            return p
        }
    }

    /// A malloc'd copy of the bytes (never NULL, even when empty), released
    /// with `handoff_free`.
    static func bytes(_ bytes: [UInt8]) -> UnsafeMutablePointer<UInt8> {
        let p = allocate(max(bytes.count, 1)).assumingMemoryBound(to: UInt8.self)
        bytes.withUnsafeBytes { src in
            if let base = src.baseAddress { UnsafeMutableRawPointer(p).copyMemory(from: base, byteCount: src.count) }
        }
        return p
    }

    /// Writes a byte result to C out-parameters.
    static func give(_ result: [UInt8], to bytes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length: UnsafeMutablePointer<Int>) {
        bytes.pointee = Self.bytes(result)
        length.pointee = result.count
    }

    static func allocate(_ count: Int) -> UnsafeMutableRawPointer {
        guard let p = malloc(count) else { fatalError("libhandoff: out of memory") }
        return p
    }
}

/// A C string that stays valid while its source value is unchanged: asked
/// again for the same value it returns the same pointer; for another value
/// it frees the old copy. This is what "borrowed until the property is set
/// again" rests on.
final class CStringSlot {
    private var source: String?
    private var pointer: UnsafeMutablePointer<CChar>?

    func pointer(for value: String) -> UnsafePointer<CChar> {
        if let pointer, source == value { return UnsafePointer(pointer) }
        free(pointer)
        let p = CMemory.string(value)
        pointer = p
        source = value
        return UnsafePointer(p)
    }

    deinit { free(pointer) }
}

/// A list of C strings kept while its source list is unchanged.
final class CStringListSlot {
    private var source: [String] = []
    private var pointers: [UnsafeMutablePointer<CChar>] = []

    func pointer(for values: [String], at index: Int) -> UnsafePointer<CChar>? {
        if values != source {
            pointers.forEach { free($0) }
            pointers = values.map(CMemory.string)
            source = values
        }
        guard index >= 0, index < pointers.count else { return nil }
        return UnsafePointer(pointers[index])
    }

    deinit { pointers.forEach { free($0) } }
}
