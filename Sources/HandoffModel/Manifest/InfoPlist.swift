import FoundationEssentials

/// Loading a manifest from an Info.plist, in XML or binary form.
///
/// Keys read: `CFBundleIdentifier` (required), `NSUserActivityTypes`
/// (optional array of strings), and the team identifier from
/// `HandoffTeamIdentifier`, or else from `AppIdentifierPrefix` (Xcode's
/// "TEAMID." form, trailing dot dropped). On Apple's systems the team comes
/// from the code signature; Linux has none, so the plist must say it.
extension Manifest {
    public static let teamIdentifierKey = "HandoffTeamIdentifier"

    /// Loads a manifest from an Info.plist file.
    /// - Throws: `.io` when the file cannot be read; `.malformedData` when it
    ///   is not a property list or lacks what a manifest needs.
    public init(infoPlistAt path: String) throws(HandoffError) {
        let bytes = try FileReading.read(path)
        do {
            try self.init(infoPlist: bytes)
        } catch {
            throw HandoffError(error.code, "\(path): \(error.message)")
        }
    }

    /// Loads a manifest from the bytes of an Info.plist (XML or binary).
    public init(infoPlist bytes: [UInt8]) throws(HandoffError) {
        let plist: InfoPlist
        do {
            plist = try PropertyListDecoder().decode(InfoPlist.self, from: Data(bytes))
        } catch {
            throw HandoffError(.malformedData, "not a usable Info.plist property list: \(Self.describe(error))")
        }
        guard let bundle = plist.CFBundleIdentifier else {
            throw HandoffError(.malformedData, "Info.plist has no CFBundleIdentifier string")
        }
        let prefix = plist.AppIdentifierPrefix.map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 }
        guard let team = plist.HandoffTeamIdentifier ?? prefix else {
            throw HandoffError(.malformedData,
                "Info.plist has no team identifier: add a \(Self.teamIdentifierKey) string (e.g. \"A1B2C3D4E5\"); only apps of one team continue each other's activities")
        }
        do {
            try self.init(bundleIdentifier: bundle, teamIdentifier: team, activityTypes: plist.NSUserActivityTypes ?? [])
        } catch {
            throw HandoffError(.malformedData, "Info.plist: \(error.message)")
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.typeMismatch(_, let ctx), DecodingError.valueNotFound(_, let ctx),
             DecodingError.keyNotFound(_, let ctx), DecodingError.dataCorrupted(let ctx):
            let path = ctx.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? ctx.debugDescription : "\(path): \(ctx.debugDescription)"
        default:
            return "\(error)"
        }
    }

    /// The Info.plist keys a manifest reads; every other key is ignored.
    private struct InfoPlist: Decodable {
        var CFBundleIdentifier: String?
        var NSUserActivityTypes: [String]?
        var HandoffTeamIdentifier: String?
        var AppIdentifierPrefix: String?
    }
}
