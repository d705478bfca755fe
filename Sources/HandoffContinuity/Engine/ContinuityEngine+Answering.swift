// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Answers to solicitations (PROTOCOL §5 "Schedule"), within the answer
/// limits ("Bounds"). A solicitation the limits refuse now is owed an
/// answer, sent as soon as they admit one for its source: a device that
/// starts listening again and again (one `handoff nearby --once` after
/// another on one port) is answered within the limits' refill rather than
/// at its next solicitation, or never when it sends none.
extension ContinuityEngine {
    /// Sources owed an answer at most (the oldest refusal beyond it is
    /// dropped: its solicitor asks again on its own schedule).
    static let maxOwedAnswers = 16

    /// Answers a solicitation with the current advert, or a presence
    /// beacon when nothing is offered, at once, to the solicitor and on
    /// the normal paths; when the limits refuse, owes it (one answer per
    /// source, however many it sent meanwhile).
    func answer(_ solicitor: UDPAddress?, host: String) {
        let key = solicitor?.description ?? host
        let answer: (advert: Advertisement?, ok: Bool, owed: Bool) = state.withLock { s in
            guard !s.stopped else { return (nil, false, false) }
            let now = monotonicSeconds()
            guard s.answerLimit.admit(key, now: now) else {
                s.counters.answersRefused += 1
                return (nil, false, owe(&s, key: key, solicitor: solicitor, now: now))
            }
            s.counters.answers += 1
            return (s.advertisement, true, false)
        }
        if answer.owed { poke() }
        guard answer.ok else { return }
        sendAnswer(answer.advert, to: solicitor)
    }

    /// The scheduler's part: each owed answer the limits admit now is sent;
    /// the rest are tried again a token's refill later.
    func answerOwed(now: Double) {
        let due: [(advert: Advertisement?, to: UDPAddress?)] = state.withLock { s in
            guard let at = s.owedAnswersDue, at <= now, !s.stopped else { return [] }
            var sent: [(Advertisement?, UDPAddress?)] = []
            for (key, solicitor) in s.owedAnswers where s.answerLimit.admit(key, now: now) {
                s.owedAnswers[key] = nil
                s.counters.answersDeferred += 1
                sent.append((s.advertisement, solicitor))
            }
            s.owedAnswersDue = s.owedAnswers.isEmpty ? nil : now + Self.answerRefill
            return sent
        }
        for answer in due { sendAnswer(answer.advert, to: answer.to) }
    }

    /// A token of a source's answer bucket comes back this often.
    static var answerRefill: Double { 1 / answerPerSource.rate }

    /// Notes that `key` is owed an answer; true when the scheduler is to
    /// look sooner than it would have.
    private func owe(_ s: inout State, key: String, solicitor: UDPAddress?, now: Double) -> Bool {
        if s.owedAnswers[key] == nil, s.owedAnswers.count >= Self.maxOwedAnswers { return false }
        s.owedAnswers[key] = solicitor
        guard s.owedAnswersDue == nil else { return false }
        s.owedAnswersDue = now + Self.answerRefill
        return true
    }

    private func sendAnswer(_ advert: Advertisement?, to solicitor: UDPAddress?) {
        if let advert { send(advert, alsoTo: solicitor) } else {
            seal(kind: .presence, activity: nil, alsoTo: solicitor)
        }
    }
}
