/* The parts of OpenSSL 3 that libhandoff uses: HKDF, AES-256-GCM, random
   bytes and TLS 1.3 with external PSKs. */
#ifndef HANDOFF_COPENSSL_SHIM_H
#define HANDOFF_COPENSSL_SHIM_H
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/core_names.h>
#endif
