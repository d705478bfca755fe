// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffContinuity

/// docs/PROTOCOL.md §5's test beacon (device A0…AF, "Test Device"): the
/// vectors' input, and what the relay's tests carry on a device topic.
public enum VectorBeacon {
    public static func make(_ kind: Beacon.Kind, sequence: UInt64) -> Beacon {
        let activity = BeaconActivity(activityID: run(0xB0, 16), activityType: "com.example.mapoff.view-region",
                                      title: "Cupertino", teamIdentifier: "A1B2C3D4E5",
                                      bundleIdentifier: "com.example.mapoff", webpageURL: nil,
                                      expiration: nil, supportsContinuationStreams: false)
        return Beacon(kind: kind, timestamp: 1_700_000_000_000, sequence: sequence, deviceID: run(0xA0, 16),
                      deviceName: "Test Device", role: .full, channelPort: 52371,
                      activity: kind == .advert ? activity : nil)
    }

    static func run(_ start: Int, _ n: Int) -> [UInt8] { (start..<start + n).map { UInt8($0) } }
}
