// SPDX-License-Identifier: MIT OR Apache-2.0
import CHandoffHeader
import HandoffModel

// Continuation streams, receiving side (the sending side is the activity
// delegate's user_activity_did_receive_stream).

@c @implementation public func handoff_activity_get_continuation_streams(_ act: OpaquePointer?, _ callback: (@convention(c) (OpaquePointer?, Int32, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void)?,
                                                                         _ userData: UnsafeMutableRawPointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let a = try ActivityBox.argument(act).activity
        guard let callback else { throw HandoffError(.invalidArgument, "callback is NULL") }
        let context = UserData(userData, destroy: nil)
        try a.getContinuationStreams { result in
            let box = ActivityBox.handle(for: a)
            withExtendedLifetime(box) {
                switch result {
                case .success(let stream):
                    callback(Handle.unretained(box), stream.takeFileDescriptor(), 0, nil, context.pointer)
                case .failure(let error):
                    error.message.withCString { callback(Handle.unretained(box), -1, error.code.rawValue, $0, context.pointer) }
                }
            }
        }
    }
}
