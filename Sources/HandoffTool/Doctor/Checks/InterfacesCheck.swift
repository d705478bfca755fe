// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent

/// The network interfaces and their addresses: is there a way to other
/// devices at all?
enum InterfacesCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        let interfaces = NetworkInterface.all()
        let usable = interfaces.filter(\.reachesOthers)
        let listing = interfaces.filter { $0.isUp && !$0.addresses.isEmpty }
            .map { "\($0.name) \($0.addresses.joined(separator: " "))" }
            .joined(separator: "; ")
        guard !usable.isEmpty else {
            return [.warn("interfaces", tr("no network interface but loopback is up with an address ({interfaces}): other devices cannot reach this one",
                                      ["interfaces": listing.isEmpty ? tr("none") : listing]),
                          todo: tr("connect to the network your other devices are on (ip -br addr shows the interfaces)"))]
        }
        return [.ok("interfaces", tr("up: {interfaces}", ["interfaces": listing]))]
    }
}
