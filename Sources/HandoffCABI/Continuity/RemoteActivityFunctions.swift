// SPDX-License-Identifier: MIT OR Apache-2.0
import CHandoffHeader
import HandoffRuntime

// handoff_remote_activity_*: see include/handoff.h, "Remote activities".

private func box(_ p: OpaquePointer?) -> RemoteActivityBox? {
    p.map { Handle.object($0, as: RemoteActivityBox.self) }
}

@c @implementation public func handoff_remote_activity_get_id(_ r: OpaquePointer?) -> UnsafePointer<CChar>? {
    box(r).map { UnsafePointer($0.id) }
}

@c @implementation public func handoff_remote_activity_get_type(_ r: OpaquePointer?) -> UnsafePointer<CChar>? {
    box(r).map { UnsafePointer($0.type) }
}

@c @implementation public func handoff_remote_activity_get_title(_ r: OpaquePointer?) -> UnsafePointer<CChar>? {
    box(r)?.title.map { UnsafePointer($0) }
}

@c @implementation public func handoff_remote_activity_get_webpage_url(_ r: OpaquePointer?) -> UnsafePointer<CChar>? {
    box(r)?.url.map { UnsafePointer($0) }
}

@c @implementation public func handoff_remote_activity_get_device_name(_ r: OpaquePointer?) -> UnsafePointer<CChar>? {
    box(r).map { UnsafePointer($0.deviceName) }
}

@c @implementation public func handoff_remote_activity_get_device_id(_ r: OpaquePointer?) -> UnsafePointer<CChar>? {
    box(r).map { UnsafePointer($0.deviceID) }
}

@c @implementation public func handoff_remote_activity_get_age(_ r: OpaquePointer?) -> Double {
    box(r)?.remote.age ?? 0
}

@c @implementation public func handoff_remote_activity_is_web_only(_ r: OpaquePointer?) -> Int32 {
    box(r)?.remote.isWebOnly == true ? 1 : 0
}

@c @implementation public func handoff_remote_activity_supports_continuation_streams(_ r: OpaquePointer?) -> Int32 {
    box(r)?.remote.supportsContinuationStreams == true ? 1 : 0
}
