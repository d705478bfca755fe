// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import Testing

/// The one-time code: seven random digits and a Damm check digit that
/// turns typos into a local refusal instead of a spent pairing run.
@Suite struct OneTimeCodeTests {
    @Test func dammOfTheTextbookExample() {
        #expect(OneTimeCode.damm("572") == 4)
        #expect(OneTimeCode.damm("5724") == 0)
    }

    @Test func generatedCodesAreEightDigitsThatCheck() throws {
        var seen = Set<String>()
        for _ in 0..<200 {
            let code = OneTimeCode.generate()
            #expect(code.digits.count == 8 && code.digits.allSatisfy(\.isNumber))
            #expect(try OneTimeCode(typed: code.description) == code)
            #expect(code.description.count == 9 && code.description.contains("-"))
            seen.insert(code.digits)
        }
        #expect(seen.count > 190, "codes repeat far more than 200 draws from 10⁷ would")
    }

    @Test func spacesAndDashesAreIgnored() throws {
        let code = OneTimeCode.generate()
        let d = code.digits
        #expect(try OneTimeCode(typed: " \(d.prefix(2)) \(d.dropFirst(2).prefix(3))-\(d.suffix(3)) ") == code)
    }

    /// Every single wrong digit and every swap of two different neighbours
    /// is refused as a typo.
    @Test func everySingleTypoIsCaught() throws {
        for _ in 0..<20 {
            let digits = Array(OneTimeCode.generate().digits)
            for i in 0..<8 {
                for d in "0123456789" where d != digits[i] {
                    var typo = digits
                    typo[i] = d
                    #expect(throws: HandoffError.self) { try OneTimeCode(typed: String(typo)) }
                }
                if i < 7, digits[i] != digits[i + 1] {
                    var swapped = digits
                    swapped.swapAt(i, i + 1)
                    #expect(throws: HandoffError.self) { try OneTimeCode(typed: String(swapped)) }
                }
            }
        }
    }

    @Test func malformedInputIsRefusedWithWhatIsWrong() {
        for text in ["", "1234567", "123456789", "1234-567a", "１２３４５６７８", "1234_5678"] {
            let error = #expect(throws: HandoffError.self) { try OneTimeCode(typed: text) }
            #expect(error?.code == .invalidArgument)
        }
    }

    @Test func thePasswordDependsOnEveryDigit() {
        let a = OneTimeCode.generate()
        var b = OneTimeCode.generate()
        while b == a { b = OneTimeCode.generate() }
        #expect(a.password != b.password)
        #expect(a.password.count == 48)
    }
}
