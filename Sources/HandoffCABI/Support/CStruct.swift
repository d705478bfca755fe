/// Reads a growable C struct that starts with its own `size_t size`
/// (libgit2's *_OPTIONS_INIT pattern): fields past `size` read as absent, so
/// a host built against an older header keeps working.
import HandoffModel

struct CStruct {
    private let base: UnsafeRawPointer
    private let size: Int

    /// Largest size believed: anything bigger is an unset `size` field.
    static let maxSize = 4096

    init(_ pointer: UnsafeRawPointer, _ name: String) throws(HandoffError) {
        let size = pointer.load(as: Int.self)
        guard size >= MemoryLayout<Int>.size, size <= Self.maxSize else {
            throw HandoffError(.invalidArgument, "\(name).size is \(size): initialise the struct with its _INIT macro")
        }
        base = pointer
        self.size = size
    }

    /// The pointer-sized field at `index` (0 is the first after `size`), or
    /// nil when the host's struct is too small to have it.
    func field<T>(_ index: Int, as _: T?.Type) -> T? {
        let offset = MemoryLayout<Int>.size * (index + 1)
        guard offset + MemoryLayout<Int>.size <= size else { return nil }
        return base.load(fromByteOffset: offset, as: T?.self)
    }
}
