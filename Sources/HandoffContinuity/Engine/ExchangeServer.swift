import FoundationEssentials
import HandoffModel
import HandoffRuntime

/// The sending side of the exchange, run on a channel connection's thread
/// after the handshake: answer FETCH through the app's main thread within
/// the timeout, pass CONFIRM on.
struct ExchangeServer: Sendable {
    let endpoint: @Sendable () -> (any ContinuityEndpoint)?
    let fetchTimeout: Double
    /// An authenticated but silent connection is closed after this long.
    let idleTimeout: Double

    func serve(_ connection: ChannelConnection) {
        defer { connection.close() }
        while true {
            let message: ExchangeMessage
            do {
                message = try ExchangeMessage(try connection.receive(timeout: idleTimeout))
            } catch {
                if error.code == .malformedData {
                    try? connection.send(ExchangeMessage.error(code: HandoffError.Code.handoffFailed.rawValue,
                                                               message: error.message).frame, timeout: 1)
                }
                return
            }
            switch message {
            case .fetch(let id):
                let reply = answer(id)
                do { try connection.send(reply.frame, timeout: fetchTimeout) } catch { return }
            case .confirm(let id):
                endpoint()?.activityWasContinued(id)
            case .payload, .error:
                return  // not something a receiver sends
            }
        }
    }

    /// The payload from the app's main thread, or the reason there is none.
    private func answer(_ id: UUID) -> ExchangeMessage {
        guard let endpoint = endpoint() else {
            return .error(code: HandoffError.Code.handoffFailed.rawValue, message: "the application has stopped")
        }
        let result = OneShot<Result<[UInt8], HandoffError>>()
        endpoint.provideActivity(id) { result.fulfil($0) }
        switch result.wait(seconds: fetchTimeout) {
        case .success(let bytes)?:
            return .payload(bytes)
        case .failure(let error)?:
            let e = error.asUserActivityError
            return .error(code: e.code.rawValue, message: e.message)
        case nil:
            return .error(code: HandoffError.Code.remoteApplicationTimedOut.rawValue,
                          message: "the application did not hand over the activity within \(fetchTimeout) s (is its main loop dispatching?)")
        }
    }
}
