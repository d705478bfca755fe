/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The parts of OpenSSL 3 that libhandoff uses: HKDF, AES-256-GCM, random
   bytes, TLS 1.3 with external PSKs, and P-256 points and HMAC for the
   one-time-code pairing (SPAKE2). */
#ifndef HANDOFF_COPENSSL_SHIM_H
#define HANDOFF_COPENSSL_SHIM_H
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/obj_mac.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/core_names.h>
#endif
