/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* sd-bus from the system's libsystemd: the agent's D-Bus client
   (notifications, application activation). Linked into the agent only,
   never into libhandoff.so (docs/agent.md §6). Only the non-variadic
   functions are usable from Swift. */
#ifndef HANDOFF_CSYSTEMD_SHIM_H
#define HANDOFF_CSYSTEMD_SHIM_H
#include <systemd/sd-bus.h>
#endif
