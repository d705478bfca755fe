/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fake_library.c: a library that claims to be libhandoff FAKE_VERSION and
 * has nothing else, to test that the binding refuses a library of another
 * major version, or one older than itself, with a clear ImportError. */
#ifndef FAKE_VERSION
#error "compile with -DFAKE_VERSION=N -DFAKE_VERSION_STRING=\"X.Y.Z\""
#endif

unsigned handoff_version_number(void);
const char *handoff_version_string(void);

unsigned handoff_version_number(void) { return FAKE_VERSION; }
const char *handoff_version_string(void) { return FAKE_VERSION_STRING; }
