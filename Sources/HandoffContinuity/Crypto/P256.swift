// SPDX-License-Identifier: MIT OR Apache-2.0
import COpenSSL
import HandoffModel

/// Points and scalars of NIST P-256 through OpenSSL's EC_POINT and BIGNUM
/// API: exactly what SPAKE2 (`SPAKE2`) needs and nothing more. OpenSSL
/// does the arithmetic (its constant-time ladder for secret scalars); this
/// type only owns the objects. One instance per run: not thread-safe.
final class P256: @unchecked Sendable {
    /// An uncompressed SEC1 point: 04 ‖ x ‖ y.
    static let pointSize = 65
    static let scalarSize = 32

    /// A scalar mod n, cleared when freed (they are secrets: x, y, w).
    final class Scalar {
        let bn: OpaquePointer
        init(_ bn: OpaquePointer) { self.bn = bn }
        deinit { BN_clear_free(bn) }
    }

    final class Point {
        let point: OpaquePointer
        init(_ point: OpaquePointer) { self.point = point }
        deinit { EC_POINT_clear_free(point) }
    }

    private let group: OpaquePointer
    private let context: OpaquePointer
    private let order: OpaquePointer

    init() {
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1), let context = BN_CTX_new(),
              let order = EC_GROUP_get0_order(group) else {
            fatalError("libhandoff: OpenSSL has no P-256")
        }
        self.group = group
        self.context = context
        self.order = order
    }

    deinit {
        BN_CTX_free(context)
        EC_GROUP_free(group)
    }

    /// `bytes` read big-endian, reduced mod n (HKDF output of 48 bytes makes
    /// the bias negligible).
    func scalar(reducing bytes: [UInt8]) -> Scalar {
        let raw = newBN()
        let reduced = newBN()
        defer { BN_clear_free(raw) }
        let ok = BN_bin2bn(bytes, Int32(bytes.count), raw) != nil && BN_nnmod(reduced, raw, order, context) == 1
        precondition(ok, "libhandoff: OpenSSL could not reduce a scalar")
        return Scalar(reduced)
    }

    /// A uniformly random scalar in [1, n) from OpenSSL's private DRBG.
    func randomScalar() -> Scalar {
        let bn = newBN()
        repeat {
            precondition(BN_priv_rand_range(bn, order) == 1, "libhandoff: OpenSSL could not draw a scalar")
        } while BN_is_zero(bn) == 1
        return Scalar(bn)
    }

    /// A scalar's 32 big-endian bytes.
    func bytes(_ scalar: Scalar) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.scalarSize)
        precondition(BN_bn2binpad(scalar.bn, &out, Int32(Self.scalarSize)) == Int32(Self.scalarSize))
        return out
    }

    /// The point in `bytes` (uncompressed or compressed SEC1); nil when it
    /// is not on the curve or is the point at infinity.
    func point(_ bytes: [UInt8]) -> Point? {
        let point = newPoint()
        guard EC_POINT_oct2point(group, point.point, bytes, bytes.count, context) == 1,
              EC_POINT_is_on_curve(group, point.point, context) == 1,
              EC_POINT_is_at_infinity(group, point.point) == 0 else {
            ERR_clear_error()
            return nil
        }
        return point
    }

    /// g·G + m·Q.
    func multiplyAdd(generator g: Scalar, _ q: Point, _ m: Scalar) -> Point {
        let result = newPoint()
        precondition(EC_POINT_mul(group, result.point, g.bn, q.point, m.bn, context) == 1, "libhandoff: OpenSSL EC_POINT_mul failed")
        return result
    }

    /// k·P.
    func multiply(_ p: Point, _ k: Scalar) -> Point {
        let result = newPoint()
        precondition(EC_POINT_mul(group, result.point, nil, p.point, k.bn, context) == 1, "libhandoff: OpenSSL EC_POINT_mul failed")
        return result
    }

    /// A − B.
    func subtract(_ a: Point, _ b: Point) -> Point {
        let negated = newPoint()
        let result = newPoint()
        let ok = EC_POINT_copy(negated.point, b.point) == 1 && EC_POINT_invert(group, negated.point, context) == 1
            && EC_POINT_add(group, result.point, a.point, negated.point, context) == 1
        precondition(ok, "libhandoff: OpenSSL EC_POINT_add failed")
        return result
    }

    func isInfinity(_ p: Point) -> Bool { EC_POINT_is_at_infinity(group, p.point) == 1 }

    /// Uncompressed SEC1, 65 bytes; the point must not be at infinity.
    func encode(_ p: Point) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.pointSize)
        let written = EC_POINT_point2oct(group, p.point, POINT_CONVERSION_UNCOMPRESSED, &out, out.count, context)
        precondition(written == Self.pointSize, "libhandoff: OpenSSL could not encode a point")
        return out
    }

    private func newBN() -> OpaquePointer {
        guard let bn = BN_secure_new() ?? BN_new() else { fatalError("libhandoff: out of memory (BIGNUM)") }
        return bn
    }

    private func newPoint() -> Point {
        guard let point = EC_POINT_new(group) else { fatalError("libhandoff: out of memory (EC_POINT)") }
        return Point(point)
    }
}

extension Crypto {
    /// HMAC-SHA256 (RFC 2104) through OpenSSL's one-shot HMAC.
    public static func hmacSHA256(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = HMAC(EVP_sha256(), key, Int32(key.count), data, data.count, &out, &length) != nil
        precondition(ok && length == 32, "libhandoff: OpenSSL HMAC-SHA256 failed")
        return out
    }

    /// Whether two byte strings are equal, in time independent of where
    /// they differ (CRYPTO_memcmp): for MACs.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && CRYPTO_memcmp(a, b, a.count) == 0
    }
}
