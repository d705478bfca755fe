import FoundationEssentials
import HandoffContinuity
import HandoffModel

/// An activity another device of the account offers, as its beacons say,
/// whatever its team and type: what `nearby` lists and `continue` looks
/// up.
struct NearbyActivity: Equatable {
    var id: String
    var type: String
    var title: String?
    var team: String
    var bundle: String
    var webpageURL: String?
    /// Milliseconds since 1970; nil for none.
    var expiration: UInt64?
    var supportsContinuationStreams: Bool
    var deviceID: String
    var deviceName: String
    var role: DeviceRole
    /// The device's TLS channel: the beacon's source address and its port.
    var channel: SocketAddress

    /// The activity an advert offers; nil for a withdrawal or a malformed id.
    init?(_ beacon: Beacon, from host: String) {
        guard beacon.kind == .advert, let a = beacon.activity, a.activityID.count == 16 else { return nil }
        id = uuidString(a.activityID)
        type = a.activityType
        title = a.title
        team = a.teamIdentifier
        bundle = a.bundleIdentifier
        webpageURL = a.webpageURL
        expiration = a.expiration
        supportsContinuationStreams = a.supportsContinuationStreams
        deviceID = hexString(beacon.deviceID)
        deviceName = beacon.deviceName
        role = beacon.role
        channel = SocketAddress(host: host, port: beacon.channelPort)
    }

    var json: JSONObject {
        var o: JSONObject = [
            "id": .string(id), "type": .string(type), "title": .string(title),
            "team": .string(team), "bundle": .string(bundle), "webpage_url": .string(webpageURL),
            "streams": .bool(supportsContinuationStreams),
        ]
        o["expires"] = expiration.map { .double(Double($0) / 1000) } ?? .null
        o["device"] = device
        o["channel"] = .string(channel.description)
        return o
    }

    var device: JSON {
        ["id": .string(deviceID), "name": .string(deviceName), "role": .string(role.name)]
    }

    /// `com.example.edit "Title" from Laptop`, for people.
    var headline: String {
        "\(type)\(title.map { " \"\($0)\"" } ?? "") from \(deviceName)"
    }

    var details: String {
        var parts = ["id \(id)", "team \(team)", "bundle \(bundle)"]
        if let webpageURL { parts.append("web \(webpageURL)") }
        parts.append("channel \(channel)")
        return parts.joined(separator: ", ")
    }
}

/// An activity id as Apple writes a UUID: uppercase, with dashes.
func uuidString(_ bytes: [UInt8]) -> String {
    precondition(bytes.count == 16)
    let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    return uuid.uuidString
}

func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
}
