// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// Answers to solicitations (PROTOCOL §5 "Schedule"), within the answer
/// limits ("Bounds"). A solicitation the limits refuse now is owed an
/// answer, sent the moment they admit one for its source (an answer sent
/// to it meanwhile settles it): a device that starts listening again and
/// again (one `handoff nearby --once` after another on one port) is
/// answered when the limits' refill allows rather than at its next
/// solicitation, or never when it sends none.
extension ContinuityEngine {
    /// Sources owed an answer at most (a refusal from one more source is
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
            s.owedAnswers.removeValue(forKey: key)
            return (s.advertisement, true, false)
        }
        if answer.owed { poke() }
        guard answer.ok else { return }
        sendAnswer(answer.advert, to: solicitor)
    }

    /// The scheduler's part: each owed answer the limits admit now is sent;
    /// the next try is when they admit the next one owed.
    func answerOwed(now: Double) {
        let due: [(advert: Advertisement?, to: UDPAddress?)] = state.withLock { s in
            guard let at = s.owedAnswersDue, at <= now, !s.stopped else { return [] }
            var sent: [(advert: Advertisement?, to: UDPAddress?)] = []
            for (key, solicitor) in s.owedAnswers where s.answerLimit.admit(key, now: now) {
                s.owedAnswers.removeValue(forKey: key)
                s.counters.answersDeferred += 1
                sent.append((advert: s.advertisement, to: solicitor))
            }
            s.owedAnswersDue = nextOwedAnswer(s, now: now)
            return sent
        }
        for answer in due { sendAnswer(answer.advert, to: answer.to) }
    }

    /// Notes that `key` is owed an answer; true when the scheduler is to
    /// look sooner than it would have.
    private func owe(_ s: inout State, key: String, solicitor: UDPAddress?, now: Double) -> Bool {
        if s.owedAnswers[key] == nil, s.owedAnswers.count >= Self.maxOwedAnswers { return false }
        s.owedAnswers.updateValue(solicitor, forKey: key)
        guard let next = nextOwedAnswer(s, now: now), next < s.owedAnswersDue ?? .infinity else { return false }
        s.owedAnswersDue = next
        return true
    }

    /// When the limits next admit one of the owed answers (nil: none owed).
    private func nextOwedAnswer(_ s: State, now: Double) -> Double? {
        s.owedAnswers.keys.map { now + s.answerLimit.secondsUntilAdmitted($0, now: now) }.min()
    }

    private func sendAnswer(_ advert: Advertisement?, to solicitor: UDPAddress?) {
        if let advert { send(advert, alsoTo: solicitor) } else {
            seal(kind: .presence, activity: nil, alsoTo: solicitor)
        }
    }
}
