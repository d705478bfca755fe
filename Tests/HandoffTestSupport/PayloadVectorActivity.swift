// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// docs/PROTOCOL.md §3's test activity, as its parts: the tests that
/// recompute the payload vector build the `UserActivity` from these
/// (its initialiser with an id is internal to HandoffModel).
public enum PayloadVectorActivity {
    public static let activityType = "com.example.shapes.create-shape"
    public static let activityID = ActivityID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E")!

    public static var state: ActivityState {
        var state = ActivityState()
        state.title = "Blue square"
        state.userInfo = [
            "color": .string("blue"),
            "created": .date(Timestamp(timeIntervalSinceReferenceDate: 100)),
            "side": .real(12.5),
            "tags": .set([.string("a")]),
            "page": .url(URLReference(string: "https://example.com/s/1")!),
            "ratio": .integer(-1),
        ]
        state.requiredUserInfoKeys = ["color"]
        state.keywords = ["shape", "blue"]
        state.webpageURL = URLReference(string: "https://example.com/shapes/1")
        return state
    }
}
