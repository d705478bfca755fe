/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Stands in for the Swift runtime's _swift_stdlib_getScalarName in
 * libhandoff.so's release link (Package.swift, --defsym), so that its
 * 0.55 MiB of Unicode character-name tables are not linked. The only
 * caller is Unicode.Scalar.Properties.name, which no code of the library
 * uses; its getter is collected, but a copy inlined into the standard
 * library's one unsplit code section still names the function. Answering
 * "no name" is what the runtime answers for a scalar without one. */
#include <stdint.h>

/* The runtime's signature: the name's length in bytes, 0 for none. */
intptr_t clinux_no_scalar_name(uint32_t scalar, uint8_t *buffer, intptr_t capacity);

intptr_t clinux_no_scalar_name(uint32_t scalar, uint8_t *buffer, intptr_t capacity) {
  (void)scalar;
  (void)buffer;
  (void)capacity;
  return 0;
}
