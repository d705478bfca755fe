// SPDX-License-Identifier: MIT OR Apache-2.0
/// Bounds on what one `BinaryPropertyList.decode` call may build.
///
/// `maxObjects` and `maxBytes` measure the value as if it were written
/// without sharing (its canonical encoding, `CanonicalCost`): every visit of
/// a shared object counts again. That is what stops a few bytes whose
/// containers share references from standing for gigabytes: the reader
/// refuses them while reading, in time proportional to the input, before
/// anything is expanded or re-encoded.
public struct DecodingLimits: Sendable, Equatable {
    /// Most containers nested inside each other; the root container is at
    /// depth 1. Default 64.
    public var maxDepth: Int
    /// Most values decoded in total, dictionary keys included, each visit
    /// counted. Default 1 << 20.
    public var maxObjects: Int
    /// Most bytes of markers, lengths and contents (strings, data, keys,
    /// numbers) in total, each visit counted, as the canonical encoding
    /// writes them (`CanonicalCost.bytes`). Default 1 << 24.
    public var maxBytes: Int
    /// What a null token (0x00) is measured as, in all three limits and in
    /// the cost `decodeMeasured` gives: nil for the token itself (1 value,
    /// 1 byte). A userInfo re-encodes null as `{"$class": "NSNull"}`
    /// (docs/PROTOCOL.md §2), so its readers measure each token as that
    /// (3 values, 15 bytes, one container more): the cost is then that of
    /// what the value will be written as.
    public var nullStandsFor: PropertyListValue?

    public init(maxDepth: Int = 64, maxObjects: Int = 1 << 20, maxBytes: Int = 1 << 24,
                nullStandsFor: PropertyListValue? = nil) {
        self.maxDepth = maxDepth
        self.maxObjects = maxObjects
        self.maxBytes = maxBytes
        self.nullStandsFor = nullStandsFor
    }

    public static let `default` = DecodingLimits()

    /// Limits every value whose canonical encoding is at most `size` bytes
    /// meets (it has at most (size - 39) / 3 values and size bytes), so
    /// exceeding them proves the canonical encoding is larger than `size`.
    public static func canonicalSize(
        atMost size: Int, maxDepth: Int = 64, nullStandsFor: PropertyListValue? = nil
    ) -> DecodingLimits {
        DecodingLimits(maxDepth: maxDepth, maxObjects: max(0, (size - 39) / 3), maxBytes: max(0, size),
                       nullStandsFor: nullStandsFor)
    }
}

extension BinaryPropertyList {
    /// Decodes a `bplist00` file. Everything plistlib writes is accepted
    /// except integers that do not fit in `Int64`; anything malformed,
    /// cyclic, too deep or too large for `limits` throws.
    ///
    /// Safe on hostile input: no traps, no recursion, every length and
    /// offset is checked before use. Each object is decoded once and shared
    /// by every reference to it, and what a reference adds is counted in
    /// O(1), so work and memory are proportional to the input's size (plus
    /// at most `limits.maxBytes` of dictionary keys hashed); a value that
    /// stands for more than `limits` once expanded is refused while reading
    /// (`PropertyListError.Kind.overLimit`).
    public static func decode(
        _ bytes: [UInt8], limits: DecodingLimits = .default
    ) throws(PropertyListError) -> PropertyListValue {
        try decodeMeasured(bytes, limits: limits).value
    }

    /// `decode`, also giving what the value costs written canonically
    /// (`cost.encodedSize` is `encode(value).count`).
    public static func decodeMeasured(
        _ bytes: [UInt8], limits: DecodingLimits = .default
    ) throws(PropertyListError) -> (value: PropertyListValue, cost: CanonicalCost) {
        var reader = try BinaryPropertyListReader(bytes, limits: limits)
        return try reader.decode()
    }

    /// `decode` with a rule for a key repeated in one dictionary. With
    /// `.lastWins` (for Info.plists: payloads keep `decode`, which refuses
    /// repeats as docs/PROTOCOL.md §1 says) `repeats` describes each
    /// repeat, once per dictionary object however often it is referenced.
    public static func decode(
        _ bytes: [UInt8], limits: DecodingLimits = .default, repeatedKeys: RepeatedKeyRule
    ) throws(PropertyListError) -> (value: PropertyListValue, repeats: [String]) {
        var reader = try BinaryPropertyListReader(bytes, limits: limits, repeatedKeys: repeatedKeys)
        let value = try reader.decode().value
        return (value, reader.repeats.messages)
    }
}

/// Reads one binary property list. Containers are walked with an explicit
/// stack; each object, once decoded, is remembered with how many values and
/// how many nested levels it holds, so a later reference to it costs O(1)
/// yet still counts fully against the limits.
struct BinaryPropertyListReader {
    private let bytes: [UInt8]
    private let limits: DecodingLimits
    private let repeatedKeys: RepeatedKeyRule
    private(set) var repeats = RepeatedKeyReport()
    private let offsetIntSize: Int
    private let objectRefSize: Int
    private let objectCount: Int
    private let topObject: Int
    /// Also the end of the object area, which starts after the header.
    private let offsetTableOffset: Int

    /// A decoded object with what it costs to visit it again.
    private struct Decoded {
        var value: PropertyListValue
        /// Values in it, itself and dictionary keys included.
        var visits: Int
        /// Its canonical markers, lengths and contents (`CanonicalCost.bytes`).
        var bytes: Int
        /// Containers on its deepest path, itself included (0 for scalars).
        var height: Int
    }

    private enum Slot {
        case unvisited
        case inProgress
        case decoded(Decoded)
    }

    /// A container being decoded.
    private struct Frame {
        let ref: Int
        let isDictionary: Bool
        /// Elements, or key/value pairs.
        let count: Int
        let firstRefOffset: Int
        /// Containers from the root down to this one, itself included.
        let depth: Int
        /// Next child reference to follow: for a dictionary, its keys are
        /// `0 ..< count`, its values `count ..< 2 * count`.
        var next = 0
        var visits = 1
        var bytes: Int
        var height = 1
        var keys: [String] = []
        var values: [PropertyListValue] = []

        var referenceCount: Int { isDictionary ? 2 * count : count }

        /// Sums stay within the limits: every child was counted first.
        mutating func add(_ child: Decoded) {
            values.append(child.value)
            visits += child.visits
            bytes += child.bytes
            height = max(height, child.height + 1)
        }
    }

    private var slots: [Slot]
    /// A null token as `limits.nullStandsFor` measures it, if given.
    private let null: Decoded?
    private var visited = 0
    /// References followed plus objects read from the bytes: the reader's
    /// work, which tests hold to a multiple of the input's size.
    private(set) var steps = 0
    private var visitedBytes = 0
    /// When the top object is a dictionary: the key whose value is being
    /// decoded and what has been counted inside that value, so a refusal
    /// can say where the limits were crossed.
    private var entryKey: String?
    private var entry = CanonicalCost()

    // MARK: Header and trailer

    init(_ bytes: [UInt8], limits: DecodingLimits, repeatedKeys: RepeatedKeyRule = .refuse) throws(PropertyListError) {
        let header = BinaryPropertyList.headerSize
        let trailerSize = BinaryPropertyList.trailerSize
        guard bytes.count >= header else {
            throw Self.error("file is too short (\(bytes.count) bytes)")
        }
        guard bytes[0..<6].elementsEqual("bplist".utf8) else {
            throw Self.error("missing \"bplist\" magic")
        }
        guard bytes[6] == UInt8(ascii: "0"), bytes[7] == UInt8(ascii: "0") else {
            throw Self.error("unsupported version (only \"bplist00\" is read)")
        }
        // Header, one 1-byte object, one 1-byte offset, trailer.
        guard bytes.count >= header + 2 + trailerSize else {
            throw Self.error("file is too short (\(bytes.count) bytes, at least \(header + 2 + trailerSize) needed)")
        }

        let trailer = bytes.count - trailerSize
        let offsetIntSize = Int(bytes[trailer + 6])
        let objectRefSize = Int(bytes[trailer + 7])
        let objectCount = Self.bigEndian(bytes, at: trailer + 8, size: 8)
        let topObject = Self.bigEndian(bytes, at: trailer + 16, size: 8)
        let tableOffset = Self.bigEndian(bytes, at: trailer + 24, size: 8)

        guard (1...8).contains(offsetIntSize) else {
            throw Self.error("trailer offset size \(offsetIntSize) is not 1...8")
        }
        guard (1...8).contains(objectRefSize) else {
            throw Self.error("trailer object reference size \(objectRefSize) is not 1...8")
        }
        guard objectCount > 0 else {
            throw Self.error("trailer says there are no objects")
        }
        // The offset table and at least one object byte must fit between
        // header and trailer. Dividing cannot overflow where multiplying could.
        let between = UInt64(trailer - header)
        guard objectCount <= (between - 1) / UInt64(offsetIntSize) else {
            throw Self.error("trailer object count \(objectCount) is more than \(bytes.count) bytes can hold")
        }
        let tableSize = objectCount * UInt64(offsetIntSize)
        guard topObject < objectCount else {
            throw Self.error("top object \(topObject) is out of range (\(objectCount) objects)")
        }
        guard tableOffset > UInt64(header) else {
            throw Self.error("offset table offset \(tableOffset) leaves no room for objects after the header")
        }
        guard tableOffset <= UInt64(trailer), tableSize <= UInt64(trailer) - tableOffset else {
            throw Self.error("offset table (\(tableSize) bytes at \(tableOffset)) runs into the trailer at \(trailer)")
        }

        self.bytes = bytes
        self.limits = limits
        self.repeatedKeys = repeatedKeys
        self.offsetIntSize = offsetIntSize
        self.objectRefSize = objectRefSize
        // All three are below bytes.count now, so they fit in Int.
        self.objectCount = Int(objectCount)
        self.topObject = Int(topObject)
        self.offsetTableOffset = Int(tableOffset)
        self.slots = Array(repeating: .unvisited, count: Int(objectCount))
        self.null = limits.nullStandsFor.map {
            let measure = BinaryPropertyList.measure($0, null: nil, atMost: .max)!
            return Decoded(value: .null, visits: measure.cost.objects, bytes: measure.cost.bytes, height: measure.height)
        }
    }

    // MARK: Walking the object graph

    mutating func decode() throws(PropertyListError) -> (value: PropertyListValue, cost: CanonicalCost) {
        var current: Frame
        switch try visit(UInt64(topObject), parentDepth: 0) {
        case .decoded(let decoded): return (decoded.value, CanonicalCost(objects: decoded.visits, bytes: decoded.bytes))
        case .container(let frame): current = frame
        }
        var parents: [Frame] = []

        while true {
            if current.next < current.referenceCount {
                let index = current.next
                current.next += 1
                steps += 1
                // In bounds: checked against the object area when the frame was made.
                let ref = Self.bigEndian(bytes, at: current.firstRefOffset + index * objectRefSize, size: objectRefSize)
                if current.isDictionary && index < current.count {
                    let key = try key(ref, of: current.ref)
                    current.keys.append(key)
                    current.visits += 1
                    current.bytes += BinaryPropertyList.stringSize(key)
                    continue
                }
                if parents.isEmpty && current.isDictionary {
                    entryKey = current.keys[index - current.count]
                    entry = CanonicalCost()
                }
                switch try visit(ref, parentDepth: current.depth) {
                case .decoded(let child):
                    current.add(child)
                case .container(let frame):
                    parents.append(current)
                    current = frame
                }
            } else {
                let done = Decoded(value: try finish(current), visits: current.visits, bytes: current.bytes, height: current.height)
                slots[current.ref] = .decoded(done)
                guard let parent = parents.popLast() else {
                    return (done.value, CanonicalCost(objects: done.visits, bytes: done.bytes))
                }
                current = parent
                current.add(done)
            }
        }
    }

    private enum Visit {
        case decoded(Decoded)
        case container(Frame)
    }

    /// Follows a reference from a container at `parentDepth` (0 for the
    /// root): a scalar or an already decoded object comes back decoded, a new
    /// container as a frame to fill.
    private mutating func visit(_ ref: UInt64, parentDepth: Int) throws(PropertyListError) -> Visit {
        let ref = try checkedReference(ref)
        switch slots[ref] {
        case .decoded(let decoded):
            try count(decoded.visits, bytes: decoded.bytes)
            // parentDepth <= maxDepth, so the subtraction cannot overflow.
            guard decoded.height <= limits.maxDepth - parentDepth else {
                throw Self.error("containers are nested deeper than \(limits.maxDepth) levels")
            }
            return .decoded(decoded)
        case .inProgress:
            throw Self.error("object \(ref) contains itself (reference cycle)")
        case .unvisited:
            break
        }

        steps += 1
        let offset = try objectOffset(ref)
        let marker = bytes[offset]
        switch marker & 0xF0 {
        case 0xA0, 0xD0:
            let isDictionary = marker & 0xF0 == 0xD0
            guard parentDepth < limits.maxDepth else {
                throw Self.error("containers are nested deeper than \(limits.maxDepth) levels")
            }
            let (count, start) = try length(marker, at: offset)
            let ownBytes = BinaryPropertyList.markerSize(count: count)
            try self.count(1, bytes: ownBytes)
            // Each element needs objectRefSize bytes (twice for a dictionary).
            let perElement = isDictionary ? 2 * objectRefSize : objectRefSize
            guard count <= (offsetTableOffset - start) / perElement else {
                throw Self.error("\(isDictionary ? "dictionary" : "array") of \(count) elements at offset \(offset) runs past the end of the objects")
            }
            var frame = Frame(
                ref: ref, isDictionary: isDictionary, count: count,
                firstRefOffset: start, depth: parentDepth + 1, bytes: ownBytes)
            let expected = min(count, limits.maxObjects)
            frame.values.reserveCapacity(expected)
            if isDictionary { frame.keys.reserveCapacity(expected) }
            slots[ref] = .inProgress
            return .container(frame)
        default:
            let value = try scalar(marker, at: offset, ref: ref)
            var decoded = Decoded(value: value, visits: 1, bytes: BinaryPropertyList.scalarSize(value), height: 0)
            if case .null = value, let null {
                // Measured as what it will be written as.
                decoded = null
                guard null.height <= limits.maxDepth - parentDepth else {
                    throw Self.error("containers are nested deeper than \(limits.maxDepth) levels (a null token counts as the dictionary it is written as)")
                }
            }
            try count(decoded.visits, bytes: decoded.bytes)
            slots[ref] = .decoded(decoded)
            return .decoded(decoded)
        }
    }

    /// A dictionary key: it must be a string object.
    private mutating func key(_ ref: UInt64, of dictionary: Int) throws(PropertyListError) -> String {
        let ref = try checkedReference(ref)
        if case .decoded(let decoded) = slots[ref] {
            guard case .string(let string) = decoded.value else {
                throw Self.error("dictionary (object \(dictionary)) has a key that is not a string (object \(ref))")
            }
            try count(1, bytes: decoded.bytes)
            return string
        }
        steps += 1
        let offset = try objectOffset(ref)
        let marker = bytes[offset]
        guard marker & 0xF0 == 0x50 || marker & 0xF0 == 0x60 else {
            throw Self.error("dictionary (object \(dictionary)) has a key that is not a string (object \(ref), marker 0x\(Self.hex(marker)))")
        }
        let value = try scalar(marker, at: offset, ref: ref)
        let bytes = BinaryPropertyList.scalarSize(value)
        try count(1, bytes: bytes)
        slots[ref] = .decoded(Decoded(value: value, visits: 1, bytes: bytes, height: 0))
        guard case .string(let string) = value else {
            throw Self.error("dictionary (object \(dictionary)) has a key that is not a string (object \(ref))")
        }
        return string
    }

    private mutating func finish(_ frame: Frame) throws(PropertyListError) -> PropertyListValue {
        guard frame.isDictionary else { return .array(frame.values) }
        var dictionary = [String: PropertyListValue](minimumCapacity: frame.count)
        for (key, value) in zip(frame.keys, frame.values) {
            // A repeat's value replaces the earlier one: the last wins.
            if dictionary.updateValue(value, forKey: key) != nil {
                let problem = "dictionary (object \(frame.ref)) has the key \(Self.quoted(key)) twice"
                guard repeatedKeys == .lastWins else { throw Self.error(problem) }
                repeats.add(problem + ": the last value is used")
            }
        }
        return .dictionary(dictionary)
    }

    /// Counts values and their canonical bytes against the limits (each
    /// visit of a shared object again).
    private mutating func count(_ values: Int, bytes: Int) throws(PropertyListError) {
        let (total, overflow) = visited.addingReportingOverflow(values)
        guard !overflow, total <= limits.maxObjects else {
            throw overLimit("more than \(limits.maxObjects) values", values, bytes)
        }
        let (totalBytes, bytesOverflow) = visitedBytes.addingReportingOverflow(bytes)
        guard !bytesOverflow, totalBytes <= limits.maxBytes else {
            throw overLimit("more than \(limits.maxBytes) bytes of values once shared objects are counted at each reference", values, bytes)
        }
        visited = total
        visitedBytes = totalBytes
        // Both below the totals, which did not overflow.
        entry.objects += values
        entry.bytes += bytes
    }

    /// `values` and `bytes` are what was being counted when a limit was crossed.
    private func overLimit(_ reason: String, _ values: Int, _ bytes: Int) -> PropertyListError {
        var error = Self.error(reason)
        error.kind = .overLimit
        if let entryKey {
            let objects = entry.objects.addingReportingOverflow(values)
            let total = entry.bytes.addingReportingOverflow(bytes)
            error.topLevelKey = entryKey
            error.topLevelCost = CanonicalCost(
                objects: objects.overflow ? Int.max / 4 : objects.partialValue,
                bytes: total.overflow ? Int.max / 4 : total.partialValue)
        }
        return error
    }

    private func checkedReference(_ ref: UInt64) throws(PropertyListError) -> Int {
        guard ref < UInt64(objectCount) else {
            throw Self.error("object reference \(ref) is out of range (\(objectCount) objects)")
        }
        return Int(ref)
    }

    /// Where object `ref` starts; always inside the object area.
    private func objectOffset(_ ref: Int) throws(PropertyListError) -> Int {
        // In bounds: the whole table was checked against the file in init.
        let offset = Self.bigEndian(bytes, at: offsetTableOffset + ref * offsetIntSize, size: offsetIntSize)
        guard offset >= UInt64(BinaryPropertyList.headerSize), offset < UInt64(offsetTableOffset) else {
            throw Self.error("object \(ref) offset \(offset) is outside the object area (\(BinaryPropertyList.headerSize)..<\(offsetTableOffset))")
        }
        return Int(offset)
    }

    // MARK: Scalars

    private func scalar(_ marker: UInt8, at offset: Int, ref: Int) throws(PropertyListError) -> PropertyListValue {
        let low = marker & 0x0F
        switch marker & 0xF0 {
        case 0x00:
            switch marker {
            case 0x00: return .null
            case 0x08: return .boolean(false)
            case 0x09: return .boolean(true)
            default: break
            }
        case 0x10:
            return .integer(try integer(marker, at: offset))
        case 0x20:
            if marker == 0x22 {
                let bits = try read(at: offset + 1, size: 4)
                return .real(Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))))
            }
            if marker == 0x23 {
                return .real(Double(bitPattern: try read(at: offset + 1, size: 8)))
            }
            throw Self.error("real of \(1 << Int(low)) bytes at offset \(offset) (only 4 or 8 are read)")
        case 0x30:
            if marker == 0x33 {
                return .date(Double(bitPattern: try read(at: offset + 1, size: 8)))
            }
        case 0x40:
            let (count, start) = try length(marker, at: offset)
            guard count <= offsetTableOffset - start else {
                throw Self.error("data of \(count) bytes at offset \(offset) runs past the end of the objects")
            }
            return .data(Array(bytes[start ..< start + count]))
        case 0x50:
            let (count, start) = try length(marker, at: offset)
            guard count <= offsetTableOffset - start else {
                throw Self.error("ASCII string of \(count) bytes at offset \(offset) runs past the end of the objects")
            }
            let slice = bytes[start ..< start + count]
            guard slice.allSatisfy({ $0 < 0x80 }) else {
                throw Self.error("ASCII string at offset \(offset) has a byte 0x80 or above")
            }
            return .string(String(decoding: slice, as: UTF8.self))
        case 0x60:
            let (count, start) = try length(marker, at: offset)
            guard count <= (offsetTableOffset - start) / 2 else {
                throw Self.error("UTF-16 string of \(count) code units at offset \(offset) runs past the end of the objects")
            }
            return .string(try utf16String(count: count, at: start))
        case 0x80:
            throw Self.error("UID object at offset \(offset) (keyed-archiver UIDs are not property list values)")
        case 0xB0, 0xC0:
            throw Self.error("set object at offset \(offset) (sets are not property list values)")
        default:
            break
        }
        throw Self.error("unknown marker 0x\(Self.hex(marker)) at offset \(offset) (object \(ref))")
    }

    /// 1, 2 and 4-byte integers are unsigned, 8-byte ones signed, 16-byte
    /// ones signed and accepted only when they fit in Int64.
    private func integer(_ marker: UInt8, at offset: Int) throws(PropertyListError) -> Int64 {
        switch marker & 0x0F {
        case 0, 1, 2:
            return Int64(try read(at: offset + 1, size: 1 << Int(marker & 0x0F)))
        case 3:
            return Int64(bitPattern: try read(at: offset + 1, size: 8))
        case 4:
            let high = try read(at: offset + 1, size: 8)
            let low = Int64(bitPattern: try read(at: offset + 9, size: 8))
            guard high == (low < 0 ? UInt64.max : 0) else {
                throw Self.error("16-byte integer at offset \(offset) does not fit in 64 bits")
            }
            return low
        default:
            throw Self.error("integer of \(1 << Int(marker & 0x0F)) bytes at offset \(offset) (only 1, 2, 4, 8 or 16 are read)")
        }
    }

    /// The count in a marker's low nibble, or in the integer object that
    /// follows a 0xF nibble; and where the payload starts.
    private func length(_ marker: UInt8, at offset: Int) throws(PropertyListError) -> (count: Int, start: Int) {
        let nibble = marker & 0x0F
        if nibble != 0x0F { return (Int(nibble), offset + 1) }
        let intMarker = try read(at: offset + 1, size: 1)
        guard intMarker & 0xF0 == 0x10, intMarker & 0x0F <= 3 else {
            throw Self.error("length at offset \(offset) is not a 1, 2, 4 or 8-byte integer (marker 0x\(Self.hex(UInt8(intMarker))))")
        }
        let size = 1 << Int(intMarker & 0x0F)
        let count = try read(at: offset + 2, size: size)
        // Any length the file could hold is far below Int.max; larger ones
        // are rejected here, smaller impossible ones by the caller.
        guard count <= UInt64(bytes.count) else {
            throw Self.error("length \(count) at offset \(offset) is larger than the file")
        }
        return (Int(count), offset + 2 + size)
    }

    private func utf16String(count: Int, at start: Int) throws(PropertyListError) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(count)
        var index = start
        for _ in 0 ..< count {
            units.append(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]))
            index += 2
        }
        // Surrogates must come in high-low pairs.
        var position = 0
        while position < units.count {
            let unit = units[position]
            if unit & 0xFC00 == 0xD800 {
                guard position + 1 < units.count, units[position + 1] & 0xFC00 == 0xDC00 else {
                    throw Self.error("UTF-16 string at offset \(start) has an unpaired high surrogate 0x\(Self.hex(unit))")
                }
                position += 2
            } else if unit & 0xFC00 == 0xDC00 {
                throw Self.error("UTF-16 string at offset \(start) has an unpaired low surrogate 0x\(Self.hex(unit))")
            } else {
                position += 1
            }
        }
        return String(decoding: units, as: UTF16.self)
    }

    // MARK: Bytes

    /// A big-endian unsigned integer of `size` (1...8) bytes that must lie
    /// inside the object area.
    private func read(at offset: Int, size: Int) throws(PropertyListError) -> UInt64 {
        guard offset <= offsetTableOffset - size else {
            throw Self.error("\(size)-byte value at offset \(offset) runs past the end of the objects")
        }
        return Self.bigEndian(bytes, at: offset, size: size)
    }

    /// Callers check the bounds first.
    private static func bigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset ..< offset + size {
            value = value << 8 | UInt64(bytes[index])
        }
        return value
    }

    private static func error(_ reason: String) -> PropertyListError {
        PropertyListError(reason: reason)
    }

    private static func hex<T: BinaryInteger>(_ value: T) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return digits.count.isMultiple(of: 2) ? digits : "0" + digits
    }

    /// A key for an error message: quoted, escaped, at most 40 characters.
    private static func quoted(_ key: String) -> String {
        let shown = key.count > 40 ? String(key.prefix(40)) + "..." : key
        return shown.debugDescription
    }
}

extension BinaryPropertyList {
    /// `decodeMeasured`, also giving the reader's steps (references followed
    /// plus objects read), refused or not: for tests that hold decoding to
    /// work proportional to the input.
    static func decodeCountingSteps(
        _ bytes: [UInt8], limits: DecodingLimits = .default
    ) -> (result: Result<(value: PropertyListValue, cost: CanonicalCost), PropertyListError>, steps: Int) {
        let reader: BinaryPropertyListReader
        do {
            reader = try BinaryPropertyListReader(bytes, limits: limits)
        } catch {
            return (.failure(error), 0)
        }
        var running = reader
        do {
            let decoded = try running.decode()
            return (.success(decoded), running.steps)
        } catch {
            return (.failure(error), running.steps)
        }
    }
}
