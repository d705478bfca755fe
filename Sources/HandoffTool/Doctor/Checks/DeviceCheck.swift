// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffContinuity
import HandoffModel

/// This device's identity: readable, and a role that receives.
enum DeviceCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        guard let profile = context.profile else { return [] }
        do {
            let device = try profile.store.loadDevice()
            context.device = device
            if device.role == .sendOnly {
                return [.warn("device", tr("this device, {name}, is send-only: it offers activities but is never offered any", ["name": device.name]),
                              todo: tr("`handoff device --role full` if it should continue activities too"))]
            }
            return [.ok("device", tr("this device is {name} ({role}, id {id})", ["name": device.name, "role": device.role.name, "id": device.id]))]
        } catch {
            if error.code == .notFound {
                return [.ok("device", tr("no device identity yet: one is made, named after the host, on first use (`handoff device`)"))]
            }
            return [.fail("device", error.message, todo: tr("remove {path}; a new identity is made on next use", ["path": profile.store.devicePath]))]
        }
    }
}
