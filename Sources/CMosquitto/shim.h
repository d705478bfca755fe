/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* libmosquitto, the MQTT client of the relay (docs/PROTOCOL.md §11,
   docs/agent.md §12). Linked into the agent and the `handoff` tool only,
   never into libhandoff.so: embedded apps reach the relay through the
   agent. */
#ifndef HANDOFF_CMOSQUITTO_SHIM_H
#define HANDOFF_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
