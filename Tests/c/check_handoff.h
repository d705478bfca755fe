/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* check_handoff.h - status assertions for tests of libhandoff's C ABI,
 * on top of check.h. */
#ifndef HANDOFF_CHECK_HANDOFF_H
#define HANDOFF_CHECK_HANDOFF_H

#include "check.h"

#include <handoff.h>

/* Makes the thread's last error something other than `avoid`, so a check of
 * the last error after a failing call proves that call set it (a successful
 * call does not clear it, so a stale code could otherwise pass). */
static CHECK_UNUSED void prime_error(int avoid) {
    if (avoid != HANDOFF_E_NOT_FOUND) {
        handoff_value *d = handoff_value_new_dictionary();
        (void)handoff_value_dictionary_remove(d, "prime-error-absent-key");
        handoff_value_free(d);
    } else {
        int64_t unused;
        (void)handoff_value_get_integer(NULL, &unused);
    }
}

/* A call returning a status that must be `code` (with the last error set to
 * it and a non-empty message when code is not HANDOFF_OK). */
#define CHECK_STATUS(expr, code)                                                 \
    do {                                                                         \
        int expected_ = (code);                                                  \
        int status_;                                                             \
        if (expected_ != HANDOFF_OK) prime_error(expected_);                     \
        status_ = (expr);                                                        \
        CHECK_EQ_INT(status_, expected_);                                        \
        if (expected_ != HANDOFF_OK) {                                           \
            CHECK_EQ_INT(handoff_last_error_code(), expected_);                  \
            CHECK(handoff_last_error_message()[0] != '\0');                      \
        }                                                                        \
    } while (0)

#define CHECK_OK(expr) CHECK_STATUS(expr, HANDOFF_OK)

/* A call returning a pointer that must be NULL with the last error `code`. */
#define CHECK_NULL_ERR(expr, code)                                               \
    do {                                                                         \
        int expected_ = (code);                                                  \
        const void *pointer_;                                                    \
        prime_error(expected_);                                                  \
        pointer_ = (const void *)(expr);                                         \
        CHECK(pointer_ == NULL && #expr != NULL);                                \
        CHECK_EQ_INT(handoff_last_error_code(), expected_);                      \
        CHECK(handoff_last_error_message()[0] != '\0');                          \
    } while (0)

#endif
