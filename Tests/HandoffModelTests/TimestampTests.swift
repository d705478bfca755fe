// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import Testing
@testable import HandoffModel

/// Timestamp stands in for Foundation's Date in the library: the same
/// arithmetic, bit for bit, so dates read, converted and written again
/// (plist dates, the C API's Unix seconds, the agent's milliseconds) keep
/// the values they had.
@Suite struct TimestampTests {
    static let seconds: [Double] = [0, -1, 1e9, -978_307_200, 978_307_200, 1_700_000_000.123, 1e15, -1e15,
                                    .pi, 0.1, 1e-9, .greatestFiniteMagnitude, .infinity, -.infinity]

    @Test(arguments: seconds)
    func conversionsAreFoundations(_ s: Double) {
        let fromUnix = Timestamp(timeIntervalSince1970: s), theirsFromUnix = Date(timeIntervalSince1970: s)
        #expect(fromUnix.timeIntervalSinceReferenceDate.bitPattern == theirsFromUnix.timeIntervalSinceReferenceDate.bitPattern)
        let fromReference = Timestamp(timeIntervalSinceReferenceDate: s)
        let theirsFromReference = Date(timeIntervalSinceReferenceDate: s)
        #expect(fromReference.timeIntervalSince1970.bitPattern == theirsFromReference.timeIntervalSince1970.bitPattern)
        #expect(fromUnix.timeIntervalSince(fromReference).bitPattern
                == theirsFromUnix.timeIntervalSince(theirsFromReference).bitPattern)
    }

    @Test func randomValuesConvertAsFoundationConverts() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0 ..< 10_000 {
            let s = Double(bitPattern: rng.next())
            guard s.isFinite else { continue }
            #expect(Timestamp(timeIntervalSince1970: s).timeIntervalSinceReferenceDate.bitPattern
                    == Date(timeIntervalSince1970: s).timeIntervalSinceReferenceDate.bitPattern)
            #expect(Timestamp(timeIntervalSinceReferenceDate: s).timeIntervalSince1970.bitPattern
                    == Date(timeIntervalSinceReferenceDate: s).timeIntervalSince1970.bitPattern)
        }
    }

    @Test func nowIsTheRealtimeClock() {
        // The same clock as Date(): within an hour (a bound, not a timing).
        #expect(abs(Timestamp.now.timeIntervalSinceReferenceDate - Date().timeIntervalSinceReferenceDate) < 3600)
        #expect(Timestamp(timeIntervalSinceNow: -1) < Timestamp())
        #expect(Timestamp(timeIntervalSinceNow: 3600).timeIntervalSinceNow > 3500)
    }

    @Test func equalityAndOrderAreTheSecondsOnes() {
        #expect(Timestamp(timeIntervalSinceReferenceDate: 1) == Timestamp(timeIntervalSince1970: 978_307_201))
        #expect(Timestamp(timeIntervalSinceReferenceDate: .nan) != Timestamp(timeIntervalSinceReferenceDate: .nan))
        #expect(Timestamp(timeIntervalSinceReferenceDate: -1) < Timestamp(timeIntervalSinceReferenceDate: 0))
    }
}
