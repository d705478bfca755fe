// SPDX-License-Identifier: MIT OR Apache-2.0
extension BinaryPropertyList {
    /// Deterministic: the same value always gives the same bytes (dictionary
    /// keys sorted by their UTF-8 bytes).
    ///
    /// The layout is the one CPython's plistlib writes with its default
    /// `sort_keys=True`: objects in depth-first pre-order (a dictionary, then
    /// its keys, then its values with their contents), references and offsets
    /// in the smallest of 1/2/4/8 bytes that holds the object count and the
    /// offset table's position. Unlike plistlib nothing is deduplicated, so the
    /// output equals plistlib's byte for byte whenever the value repeats no
    /// scalar (including a key equal to a string value elsewhere).
    public static func encode(_ value: PropertyListValue) -> [UInt8] {
        var writer = BinaryPropertyListWriter()
        return writer.write(value)
    }
}

/// Flattens a value into the object list, then writes objects, offset table
/// and trailer. Iterative, so arbitrarily deep values cannot overflow the
/// stack here.
struct BinaryPropertyListWriter {
    private enum Object {
        case scalar(PropertyListValue)
        /// Children's references are `refs[firstRef ..< firstRef + count]`.
        case array(count: Int, firstRef: Int)
        /// Key references, then value references:
        /// `refs[firstRef ..< firstRef + 2 * count]`.
        case dictionary(count: Int, firstRef: Int)
    }

    private var objects: [Object] = []
    /// Every container's child references, side by side.
    private var refs: [Int] = []
    private var out: [UInt8] = []

    mutating func write(_ root: PropertyListValue) -> [UInt8] {
        flatten(root)

        let objectRefSize = Self.byteCount(for: objects.count)
        out = BinaryPropertyList.magic
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(out.count)
            switch object {
            case .scalar(let value):
                writeScalar(value)
            case .array(let count, let firstRef):
                writeMarker(0xA0, count: count)
                for ref in refs[firstRef ..< firstRef + count] {
                    appendBigEndian(UInt64(ref), size: objectRefSize)
                }
            case .dictionary(let count, let firstRef):
                writeMarker(0xD0, count: count)
                for ref in refs[firstRef ..< firstRef + 2 * count] {
                    appendBigEndian(UInt64(ref), size: objectRefSize)
                }
            }
        }

        let offsetTableOffset = out.count
        let offsetIntSize = Self.byteCount(for: offsetTableOffset)
        for offset in offsets {
            appendBigEndian(UInt64(offset), size: offsetIntSize)
        }

        // Trailer: 5 unused bytes, sortVersion 0, then the sizes and counts.
        out.append(contentsOf: [0, 0, 0, 0, 0, 0])
        out.append(UInt8(offsetIntSize))
        out.append(UInt8(objectRefSize))
        appendBigEndian(UInt64(objects.count), size: 8)
        appendBigEndian(0, size: 8) // the top object is always the first
        appendBigEndian(UInt64(offsetTableOffset), size: 8)
        return out
    }

    /// Lists the objects in plistlib's order. A container's reference slots
    /// are filled in as its children are numbered.
    private mutating func flatten(_ root: PropertyListValue) {
        // (value, slot in `refs` that receives its reference, or -1 for the root)
        var pending: [(value: PropertyListValue, slot: Int)] = [(root, -1)]
        while let (value, slot) = pending.popLast() {
            let ref = objects.count
            if slot >= 0 { refs[slot] = ref }
            switch value {
            case .array(let items):
                let firstRef = refs.count
                objects.append(.array(count: items.count, firstRef: firstRef))
                refs.append(contentsOf: repeatElement(0, count: items.count))
                for index in items.indices.reversed() {
                    pending.append((items[index], firstRef + index))
                }
            case .dictionary(let dictionary):
                let entries = dictionary.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                let count = entries.count
                let firstRef = refs.count
                objects.append(.dictionary(count: count, firstRef: firstRef))
                refs.append(contentsOf: repeatElement(0, count: 2 * count))
                // Popped in order: all keys, then each value with its contents.
                for index in entries.indices.reversed() {
                    pending.append((entries[index].value, firstRef + count + index))
                }
                for index in entries.indices.reversed() {
                    pending.append((.string(entries[index].key), firstRef + index))
                }
            default:
                objects.append(.scalar(value))
            }
        }
    }

    private mutating func writeScalar(_ value: PropertyListValue) {
        switch value {
        case .null:
            out.append(0x00)
        case .boolean(let flag):
            out.append(flag ? 0x09 : 0x08)
        case .integer(let number):
            writeInteger(number)
        case .real(let number):
            out.append(0x23)
            appendBigEndian(number.bitPattern, size: 8)
        case .date(let seconds):
            out.append(0x33)
            appendBigEndian(seconds.bitPattern, size: 8)
        case .data(let bytes):
            writeMarker(0x40, count: bytes.count)
            out.append(contentsOf: bytes)
        case .string(let string):
            if BinaryPropertyList.isASCII(string) {
                writeMarker(0x50, count: string.utf8.count)
                out.append(contentsOf: string.utf8)
            } else {
                let units = string.utf16
                writeMarker(0x60, count: units.count)
                out.reserveCapacity(out.count + 2 * units.count)
                for unit in units {
                    out.append(UInt8(truncatingIfNeeded: unit >> 8))
                    out.append(UInt8(truncatingIfNeeded: unit))
                }
            }
        case .array, .dictionary:
            preconditionFailure("containers are written by write(_:)")
        }
    }

    /// Non-negative integers unsigned in 1, 2, 4 or 8 bytes; negative ones as
    /// 8-byte two's complement.
    private mutating func writeInteger(_ number: Int64) {
        if number < 0 {
            out.append(0x13)
            appendBigEndian(UInt64(bitPattern: number), size: 8)
        } else {
            let size = Self.byteCount(for: Int(number))
            out.append(0x10 | Self.log2(size))
            appendBigEndian(UInt64(number), size: size)
        }
    }

    /// A marker with its count in the low nibble, or nibble 0xF followed by
    /// the count as an integer object.
    private mutating func writeMarker(_ marker: UInt8, count: Int) {
        if count < 15 {
            out.append(marker | UInt8(count))
        } else {
            out.append(marker | 0x0F)
            writeInteger(Int64(count))
        }
    }

    private mutating func appendBigEndian(_ value: UInt64, size: Int) {
        var shift = 8 * (size - 1)
        while shift >= 0 {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }

    /// plistlib's `_count_to_size`: 1, 2, 4 or 8 bytes.
    static func byteCount(for value: Int) -> Int {
        if value < 1 << 8 { return 1 }
        if value < 1 << 16 { return 2 }
        if value < 1 << 32 { return 4 }
        return 8
    }

    private static func log2(_ size: Int) -> UInt8 {
        switch size {
        case 1: 0
        case 2: 1
        case 4: 2
        default: 3
        }
    }
}
