// SPDX-License-Identifier: MIT OR Apache-2.0
/// The size of a value's canonical encoding (what `BinaryPropertyList.encode`
/// writes: no object shared, docs/PROTOCOL.md §1), computed without writing
/// it. The userInfo budget is defined on this size, so sender and receiver
/// measure the same number whatever sharing the bytes on the wire used.
///
/// Written canonically, a value of `objects` values (dictionary keys
/// included, a shared object once per reference) whose markers, lengths and
/// contents take `bytes` bytes is
///
///     8 + bytes + (objects - 1) * refSize + objects * offsetSize + 32
///
/// bytes long: every object but the top one is referenced exactly once,
/// `refSize` is the smallest of 1/2/4/8 bytes that holds `objects`, and
/// `offsetSize` the smallest that holds the offset table's position.
public struct CanonicalCost: Sendable, Equatable {
    /// Values, dictionary keys included, each reference counted.
    public var objects: Int
    /// Markers, lengths and contents; references and the offset table excluded.
    public var bytes: Int

    public init(objects: Int = 0, bytes: Int = 0) {
        self.objects = objects
        self.bytes = bytes
    }

    /// Size of the canonical encoding of a value of this cost.
    public var encodedSize: Int {
        guard objects > 0 else { return 0 }
        let refSize = BinaryPropertyListWriter.byteCount(for: objects)
        let tableOffset = BinaryPropertyList.headerSize + bytes + (objects - 1) * refSize
        let offsetSize = BinaryPropertyListWriter.byteCount(for: tableOffset)
        return tableOffset + objects * offsetSize + BinaryPropertyList.trailerSize
    }

    /// A lower bound of `encodedSize` that grows with every value and byte
    /// added (1-byte references and offsets), for stopping a walk early.
    public var minimumEncodedSize: Int {
        guard objects > 0 else { return 0 }
        return BinaryPropertyList.headerSize + bytes + (objects - 1) + objects + BinaryPropertyList.trailerSize
    }
}

/// A value's canonical cost and how many containers deep it is.
struct CanonicalMeasure: Sendable, Equatable {
    var cost: CanonicalCost
    /// Containers on its deepest path, itself included (0 for a scalar).
    var height: Int
}

extension BinaryPropertyList {
    /// Size of `value`'s canonical encoding (`encode(value).count`), or nil
    /// when it is over `limit`. The walk stops as soon as the size is known to
    /// be over the limit, so it costs O(limit) however much `value` shares
    /// (a value decoded from a few bytes may stand for gigabytes).
    ///
    /// With `nullStandsFor`, every null token is measured as that value
    /// instead (a userInfo writes null as `{"$class": "NSNull"}`,
    /// docs/PROTOCOL.md §2): the size is then that of what the value
    /// re-encodes to.
    public static func canonicalSize(
        of value: PropertyListValue, atMost limit: Int, nullStandsFor: PropertyListValue? = nil
    ) -> Int? {
        let null = nullStandsFor.map { measure($0, null: nil, atMost: .max)! }
        guard let size = measure(value, null: null, atMost: limit)?.cost.encodedSize else { return nil }
        return size <= limit ? size : nil
    }

    /// `value`'s canonical cost and height, each null token counted as
    /// `null` when given; nil as soon as its minimum encoded size is over
    /// `limit`.
    static func measure(_ value: PropertyListValue, null: CanonicalMeasure?, atMost limit: Int) -> CanonicalMeasure? {
        var cost = CanonicalCost()
        var height = 0
        // Containers being walked, each with where its walk stands: O(1)
        // work per value visited, however long the containers are.
        var arrays: [IndexingIterator<[PropertyListValue]>] = []
        var dictionaries: [Dictionary<String, PropertyListValue>.Iterator] = []
        var kinds: [Bool] = [] // true: the innermost open container is a dictionary
        var next: PropertyListValue? = value
        while true {
            if let value = next {
                next = nil
                if case .null = value, let null {
                    cost.objects += null.cost.objects
                    cost.bytes += null.cost.bytes
                    height = max(height, kinds.count + null.height)
                } else {
                    cost.objects += 1
                    cost.bytes += scalarSize(value)
                    switch value {
                    case .array(let items):
                        arrays.append(items.makeIterator())
                        kinds.append(false)
                    case .dictionary(let dictionary):
                        dictionaries.append(dictionary.makeIterator())
                        kinds.append(true)
                    default:
                        break
                    }
                    height = max(height, kinds.count)
                }
                if cost.minimumEncodedSize > limit { return nil }
            }
            guard let isDictionary = kinds.last else { break }
            if isDictionary {
                if let (key, item) = dictionaries[dictionaries.count - 1].next() {
                    cost.objects += 1
                    cost.bytes += stringSize(key)
                    next = item
                } else {
                    dictionaries.removeLast()
                    kinds.removeLast()
                }
            } else {
                if let item = arrays[arrays.count - 1].next() {
                    next = item
                } else {
                    arrays.removeLast()
                    kinds.removeLast()
                }
            }
        }
        return CanonicalMeasure(cost: cost, height: height)
    }

    /// Bytes a scalar takes in the canonical encoding (marker, length, contents).
    static func scalarSize(_ value: PropertyListValue) -> Int {
        switch value {
        case .null, .boolean: return 1
        case .integer(let number): return number < 0 ? 9 : 1 + BinaryPropertyListWriter.byteCount(for: Int(number))
        case .real, .date: return 9
        case .data(let bytes): return markerSize(count: bytes.count) + bytes.count
        case .string(let string): return stringSize(string)
        case .array(let items): return markerSize(count: items.count)
        case .dictionary(let dictionary): return markerSize(count: dictionary.count)
        }
    }

    /// ASCII strings are written one byte per character, others as UTF-16.
    static func stringSize(_ string: String) -> Int {
        if isASCII(string) {
            return markerSize(count: string.utf8.count) + string.utf8.count
        }
        let units = string.utf16.count
        return markerSize(count: units) + 2 * units
    }

    /// Whether a string is written as ASCII. Equal counts mean ASCII (any
    /// other scalar takes more UTF-8 bytes than UTF-16 units), and a native
    /// string knows both at once when it is ASCII: no walk over the bytes.
    static func isASCII(_ string: String) -> Bool {
        string.utf8.count == string.utf16.count
    }

    /// A marker with the count in its low nibble, or followed by the count
    /// as an integer object from 15 on.
    static func markerSize(count: Int) -> Int {
        count < 15 ? 1 : 2 + BinaryPropertyListWriter.byteCount(for: count)
    }
}
