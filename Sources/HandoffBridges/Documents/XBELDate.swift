// SPDX-License-Identifier: MIT OR Apache-2.0

/// The dates of a `recently-used.xbel`: ISO 8601 in UTC as GLib writes them
/// (`2026-11-29T17:43:24.612719Z`; older files `2026-11-29T17:43:24Z`), or
/// with an offset (`+01:00`), which `g_date_time_new_from_iso8601` also
/// reads. Seconds since 1970; nil for anything else.
public enum XBELDate {
    public static func parse(_ text: String) -> Double? {
        let b = Array(text.utf8)
        guard b.count >= 20, b.count <= 40 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int? {
            var value = 0
            for i in from..<(from + count) {
                guard i < b.count, b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                value = value * 10 + Int(b[i] - 0x30)
            }
            return value
        }
        guard let year = number(0, 4), b[4] == 0x2D, let month = number(5, 2), b[7] == 0x2D, let day = number(8, 2),
              b[10] == UInt8(ascii: "T"), let hour = number(11, 2), b[13] == 0x3A, let minute = number(14, 2),
              b[16] == 0x3A, let second = number(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < b.count, b[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < b.count, b[index] >= 0x30, b[index] <= 0x39, index - start < 9 {
                fraction += Double(b[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        guard index < b.count else { return nil }
        if b[index] == UInt8(ascii: "Z"), index == b.count - 1 {
            offset = 0
        } else if b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-"), b.count - index == 6,
                  let h = number(index + 1, 2), b[index + 3] == 0x3A, let m = number(index + 4, 2), h < 24, m < 60 {
            offset = (h * 3600 + m * 60) * (b[index] == UInt8(ascii: "+") ? 1 : -1)
        } else {
            return nil
        }
        let days = daysFromCivil(year, month, day)
        return Double(days * 86400 + hour * 3600 + minute * 60 + second - offset) + fraction
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}
