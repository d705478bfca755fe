// SPDX-License-Identifier: MIT OR Apache-2.0
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
            return [.warn("interfaces", "no network interface but loopback is up with an address (\(listing.isEmpty ? "none" : listing)): "
                              + "other devices cannot reach this one",
                          todo: "connect to the network your other devices are on (ip -br addr shows the interfaces)")]
        }
        return [.ok("interfaces", "up: \(listing)")]
    }
}
