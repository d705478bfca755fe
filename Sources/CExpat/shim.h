/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* expat, the XML parser CPython's plistlib also uses: libhandoff reads XML
   Info.plists with it rather than with a hand-written XML parser. */
#ifndef HANDOFF_CEXPAT_SHIM_H
#define HANDOFF_CEXPAT_SHIM_H
#include <expat.h>
#endif
