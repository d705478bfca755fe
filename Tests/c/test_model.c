/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_model.c - C tests of libhandoff's model API (values, activities,
 * manifests), through include/handoff.h only.
 *
 *   gcc -std=c11 -Wall -Wextra -Werror -pedantic -I include \
 *       Tests/c/test_model.c -L LIBDIR -lhandoff -Wl,-rpath,LIBDIR -o test_model
 *
 * Each test runs in its own process (see check.h); CHECK_NOFORK=1 runs them
 * all in one, e.g. under valgrind. Test names as arguments run only those.
 */
#define _POSIX_C_SOURCE 200809L

/* mkostemp: descriptors close-on-exec from the call (Tests/abi/check_cloexec.py). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(__STDC_NO_THREADS__)
#include <threads.h>
#endif

#include "handoff.h"

#include "check_handoff.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

#define ARRAY_COUNT(a) (sizeof(a) / sizeof((a)[0]))


/* Owned-value constructors that must not fail in these tests. */
static handoff_value *int_value(int64_t v) { return handoff_value_new_integer(v); }
static handoff_value *str_value(const char *s) { return handoff_value_new_string(s); }

/* dictionary[key] = item, taking ownership of item (freed here). */
static void dict_put(handoff_value *dict, const char *key, handoff_value *item) {
    CHECK(item != NULL);
    CHECK_OK(handoff_value_dictionary_set(dict, key, item));
    handoff_value_free(item);
}

static void array_push(handoff_value *array, handoff_value *item) {
    CHECK(item != NULL);
    CHECK_OK(handoff_value_array_append(array, item));
    handoff_value_free(item);
}

static void set_put(handoff_value *set, handoff_value *member) {
    CHECK(member != NULL);
    CHECK_OK(handoff_value_set_add(set, member));
    handoff_value_free(member);
}

static int64_t read_integer(const handoff_value *v) {
    int64_t out = -12345;
    CHECK_OK(handoff_value_get_integer(v, &out));
    return out;
}

static int starts_with_bplist(const uint8_t *bytes, size_t length) {
    return bytes != NULL && length >= 8 && memcmp(bytes, "bplist00", 8) == 0;
}

/* A small deterministic PRNG (xorshift64*). */
static uint64_t prng_state = 0x9E3779B97F4A7C15ull;
static uint64_t prng_next(void) {
    prng_state ^= prng_state >> 12;
    prng_state ^= prng_state << 25;
    prng_state ^= prng_state >> 27;
    return prng_state * 0x2545F4914F6CDD1Dull;
}

/* Writes bytes to a fresh temporary file; path receives its name. */
static int write_temp_file(const void *bytes, size_t length, char *path, size_t path_size) {
    const char *dir = getenv("TMPDIR");
    int fd;
    FILE *f;
    if (dir == NULL || dir[0] == '\0') dir = "/tmp";
    snprintf(path, path_size, "%s/handoff-test-XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) return 0;
    f = fdopen(fd, "wb");
    if (f == NULL) {
        close(fd);
        unlink(path);
        return 0;
    }
    if (length > 0 && fwrite(bytes, 1, length, f) != length) {
        fclose(f);
        unlink(path);
        return 0;
    }
    if (fclose(f) != 0) {
        unlink(path);
        return 0;
    }
    return 1;
}

/* A rich dictionary holding one value of every kind, nested containers
 * included. The caller owns it. */
static handoff_value *make_rich_dictionary(void) {
    static const unsigned char bytes[] = {0x00, 0x01, 0x00, 0xFF, 0x7F, 0x00};
    handoff_value *dict = handoff_value_new_dictionary();
    handoff_value *array = handoff_value_new_array();
    handoff_value *set = handoff_value_new_set();
    handoff_value *inner = handoff_value_new_dictionary();

    dict_put(dict, "null", handoff_value_new_null());
    dict_put(dict, "true", handoff_value_new_boolean(1));
    dict_put(dict, "false", handoff_value_new_boolean(0));
    dict_put(dict, "int", int_value(-42));
    dict_put(dict, "int.min", int_value(INT64_MIN));
    dict_put(dict, "int.max", int_value(INT64_MAX));
    dict_put(dict, "real", handoff_value_new_real(2.5));
    dict_put(dict, "real.inf", handoff_value_new_real(INFINITY));
    dict_put(dict, "string", str_value("caf\xc3\xa9 \xe2\x98\x95 \xf0\x9f\x98\x80"));
    dict_put(dict, "string.empty", str_value(""));
    dict_put(dict, "data", handoff_value_new_data(bytes, sizeof bytes));
    dict_put(dict, "data.empty", handoff_value_new_data(NULL, 0));
    dict_put(dict, "date", handoff_value_new_date(1700000000.5));
    dict_put(dict, "url", handoff_value_new_url("https://example.com/path?q=1"));

    array_push(array, int_value(1));
    array_push(array, str_value("two"));
    array_push(array, handoff_value_new_null());
    set_put(set, int_value(7));
    set_put(set, str_value("seven"));
    set_put(set, handoff_value_new_url("https://example.org/"));
    dict_put(inner, "set", set);
    dict_put(inner, "array", array);
    dict_put(dict, "inner", inner);
    return dict;
}

/* Encodes and decodes a value, checking it comes back equal. */
static void check_value_round_trip(const handoff_value *value, const char *what) {
    uint8_t *bytes = (uint8_t *)"sentinel";
    size_t length = 0;
    handoff_value *back;
    int status = handoff_value_encode(value, &bytes, &length);
    if (!CHECK_EQ_INT(status, HANDOFF_OK)) {
        CHECK_FAIL("encoding %s failed: %s", what, handoff_last_error_message());
        return;
    }
    if (!CHECK(starts_with_bplist(bytes, length))) CHECK_FAIL("encoding of %s", what);
    back = handoff_value_decode(bytes, length);
    if (!CHECK(back != NULL)) {
        CHECK_FAIL("decoding %s failed: %s", what, handoff_last_error_message());
    } else {
        if (!CHECK_EQ_INT(handoff_value_get_kind(back), handoff_value_get_kind(value)))
            CHECK_FAIL("kind of %s", what);
        if (!CHECK(handoff_value_equal(back, value))) CHECK_FAIL("%s did not round trip", what);
    }
    handoff_value_free(back);
    handoff_free(bytes);
}

/* ------------------------------------------------------------------------ */
/* Version, status strings, errors                                          */
/* ------------------------------------------------------------------------ */

static void test_version(void) {
    char expected[32];
    const char *s = handoff_version_string();
    CHECK_EQ_INT(handoff_version_number(), HANDOFF_VERSION_NUMBER);
    CHECK_EQ_INT(HANDOFF_VERSION_NUMBER,
                 HANDOFF_VERSION_MAJOR * 10000 + HANDOFF_VERSION_MINOR * 100 + HANDOFF_VERSION_PATCH);
    CHECK(s != NULL);
    CHECK_EQ_STR(s, HANDOFF_VERSION_STRING);
    snprintf(expected, sizeof expected, "%d.%d.%d", HANDOFF_VERSION_MAJOR, HANDOFF_VERSION_MINOR,
             HANDOFF_VERSION_PATCH);
    CHECK_EQ_STR(s, expected);
    /* Static storage: the same pointer each time. */
    CHECK(handoff_version_string() == s);
}

static void test_status_strings(void) {
    static const int known[] = {
        HANDOFF_OK,
        HANDOFF_E_INVALID_ARGUMENT,
        HANDOFF_E_INVALID_VALUE,
        HANDOFF_E_TYPE_MISMATCH,
        HANDOFF_E_NOT_FOUND,
        HANDOFF_E_MALFORMED_DATA,
        HANDOFF_E_IO,
        HANDOFF_E_MISSING_REQUIRED_KEY,
        HANDOFF_E_INVALID_STATE,
        HANDOFF_E_WRONG_THREAD,
        HANDOFF_E_TIMED_OUT,
        HANDOFF_E_PERMISSION,
        HANDOFF_E_HANDOFF_FAILED,
        HANDOFF_E_CONNECTION_UNAVAILABLE,
        HANDOFF_E_REMOTE_APPLICATION_TIMED_OUT,
        HANDOFF_E_USER_INFO_TOO_LARGE,
    };
    static const int unknown[] = {-1, 12, 99, 100, 4607, 4612, 4700, 4863, 4864, 65536,
                                  2147483647, -2147483647 - 1};
    size_t i, j;
    for (i = 0; i < ARRAY_COUNT(known); i++) {
        const char *s = handoff_status_string(known[i]);
        if (!CHECK(s != NULL)) continue;
        if (!CHECK(s[0] != '\0')) CHECK_FAIL("empty string for status %d", known[i]);
        if (!CHECK(strcmp(s, "unknown status") != 0)) CHECK_FAIL("status %d is unknown", known[i]);
        for (j = 0; j < i; j++) {
            const char *t = handoff_status_string(known[j]);
            if (t != NULL && !CHECK(strcmp(s, t) != 0))
                CHECK_FAIL("statuses %d and %d share the string \"%s\"", known[i], known[j], s);
        }
    }
    {
        const char *s = handoff_status_string(HANDOFF_E_USER_INFO_TOO_LARGE);
        CHECK(s != NULL && strstr(s, "too large") != NULL);
    }
    CHECK_EQ_INT(HANDOFF_E_USER_INFO_TOO_LARGE, 4611);
    CHECK(HANDOFF_E_HANDOFF_FAILED >= HANDOFF_USER_ACTIVITY_ERROR_MINIMUM);
    CHECK(HANDOFF_E_USER_INFO_TOO_LARGE <= HANDOFF_USER_ACTIVITY_ERROR_MAXIMUM);
    for (i = 0; i < ARRAY_COUNT(unknown); i++) {
        if (!CHECK_EQ_STR(handoff_status_string(unknown[i]), "unknown status"))
            CHECK_FAIL("status %d", unknown[i]);
    }
}

#if !defined(__STDC_NO_THREADS__)
struct thread_probe {
    int code_before;
    int message_empty_before;
    int code_after;
};

static int thread_probe_main(void *arg) {
    struct thread_probe *probe = (struct thread_probe *)arg;
    const char *message = handoff_last_error_message();
    int64_t unused;
    probe->code_before = handoff_last_error_code();
    probe->message_empty_before = message != NULL && message[0] == '\0';
    (void)handoff_value_get_integer(NULL, &unused); /* INVALID_ARGUMENT */
    probe->code_after = handoff_last_error_code();
    return 0;
}
#endif

static void test_last_error(void) {
    handoff_activity *activity;
    handoff_value *v;
    const char *message;
    int64_t i;

    /* Each test runs in a fresh process, so nothing failed on this thread
     * yet (with CHECK_NOFORK=1 earlier tests may have failed calls). */
    if (getenv("CHECK_NOFORK") == NULL) {
        CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_OK);
        CHECK(handoff_last_error_message() != NULL);
        CHECK_EQ_STR(handoff_last_error_message(), "");
    }

    activity = handoff_activity_new("bad\ttype");
    CHECK(activity == NULL);
    handoff_activity_free(activity);
    CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_INVALID_VALUE);
    message = handoff_last_error_message();
    if (CHECK(message != NULL)) {
        CHECK(message[0] != '\0');
        /* It says what was refused and why. */
        if (!CHECK(strstr(message, "bad\ttype") != NULL && strstr(message, "control character") != NULL))
            CHECK_FAIL("message: %s", message);
    }

    /* A successful call does not clear it. */
    v = int_value(5);
    CHECK(v != NULL);
    CHECK_EQ_INT(read_integer(v), 5);
    CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_INVALID_VALUE);
    CHECK(handoff_last_error_message()[0] != '\0');

    /* The next failure replaces it. */
    CHECK(handoff_value_get_string(v, NULL) == NULL);
    CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_TYPE_MISMATCH);
    CHECK(handoff_last_error_message()[0] != '\0');
    CHECK_EQ_INT(handoff_value_get_integer(v, NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_INVALID_ARGUMENT);
    i = 0;
    CHECK_EQ_INT(handoff_value_get_integer(NULL, &i), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_EQ_INT(i, 0);
    handoff_value_free(v);

#if !defined(__STDC_NO_THREADS__)
    /* Per thread: a new thread starts clean, and its failures stay its own. */
    {
        struct thread_probe probe = {-1, 0, -1};
        thrd_t thread;
        prime_error(HANDOFF_E_INVALID_ARGUMENT); /* this thread: NOT_FOUND */
        CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_NOT_FOUND);
        if (CHECK(thrd_create(&thread, thread_probe_main, &probe) == thrd_success)) {
            thrd_join(thread, NULL);
            CHECK_EQ_INT(probe.code_before, HANDOFF_OK);
            CHECK(probe.message_empty_before);
            CHECK_EQ_INT(probe.code_after, HANDOFF_E_INVALID_ARGUMENT);
        }
        CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_NOT_FOUND);
    }
#endif
}

/* ------------------------------------------------------------------------ */
/* Scalar values                                                            */
/* ------------------------------------------------------------------------ */

static void test_value_null(void) {
    handoff_value *v = handoff_value_new_null();
    int b = 7;
    if (!CHECK(v != NULL)) return;
    CHECK_EQ_INT(handoff_value_get_kind(v), HANDOFF_VALUE_NULL);
    CHECK_EQ_INT(handoff_value_count(v), 0);
    CHECK_STATUS(handoff_value_get_boolean(v, &b), HANDOFF_E_TYPE_MISMATCH);
    CHECK_EQ_INT(b, 7);
    check_value_round_trip(v, "null");
    handoff_value_free(v);
}

static void test_value_boolean(void) {
    handoff_value *t = handoff_value_new_boolean(1);
    handoff_value *f = handoff_value_new_boolean(0);
    handoff_value *other = handoff_value_new_boolean(-7); /* any non-zero is true */
    int out = 42;
    int64_t i = 99;
    if (!CHECK(t != NULL && f != NULL && other != NULL)) return;
    CHECK_EQ_INT(handoff_value_get_kind(t), HANDOFF_VALUE_BOOLEAN);
    CHECK_EQ_INT(handoff_value_get_kind(f), HANDOFF_VALUE_BOOLEAN);
    CHECK_OK(handoff_value_get_boolean(t, &out));
    CHECK_EQ_INT(out, 1);
    CHECK_OK(handoff_value_get_boolean(f, &out));
    CHECK_EQ_INT(out, 0);
    out = 42;
    CHECK_OK(handoff_value_get_boolean(other, &out));
    CHECK_EQ_INT(out, 1);
    CHECK(handoff_value_equal(t, other));
    CHECK(!handoff_value_equal(t, f));
    /* A boolean is not an integer. */
    CHECK_STATUS(handoff_value_get_integer(t, &i), HANDOFF_E_TYPE_MISMATCH);
    CHECK_EQ_INT(i, 99);
    CHECK_STATUS(handoff_value_get_boolean(t, NULL), HANDOFF_E_INVALID_ARGUMENT);
    out = 42;
    CHECK_STATUS(handoff_value_get_boolean(NULL, &out), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_EQ_INT(out, 42);
    check_value_round_trip(t, "true");
    check_value_round_trip(f, "false");
    handoff_value_free(t);
    handoff_value_free(f);
    handoff_value_free(other);
}

static void test_value_integer(void) {
    static const int64_t samples[] = {0, 1, -1, 255, 256, 65535, 65536, 4294967295LL,
                                      4294967296LL, -4294967296LL, INT64_MIN, INT64_MAX,
                                      INT64_MIN + 1, INT64_MAX - 1};
    size_t k;
    for (k = 0; k < ARRAY_COUNT(samples); k++) {
        handoff_value *v = int_value(samples[k]);
        int64_t out = 0x5A5A;
        double d = 3.25;
        if (!CHECK(v != NULL)) continue;
        CHECK_EQ_INT(handoff_value_get_kind(v), HANDOFF_VALUE_INTEGER);
        CHECK_OK(handoff_value_get_integer(v, &out));
        if (!CHECK(out == samples[k])) CHECK_FAIL("sample %zu", k);
        CHECK_STATUS(handoff_value_get_real(v, &d), HANDOFF_E_TYPE_MISMATCH);
        CHECK(d == 3.25);
        check_value_round_trip(v, "integer");
        handoff_value_free(v);
    }
    {
        handoff_value *one = int_value(1);
        handoff_value *one_real = handoff_value_new_real(1.0);
        CHECK(!handoff_value_equal(one, one_real)); /* integer 1 and real 1.0 differ */
        handoff_value_free(one);
        handoff_value_free(one_real);
    }
}

static void test_value_real(void) {
    static const double samples[] = {0.0, -0.0, 1.5, -2.25, 1e300, -1e-300, 4.9e-324,
                                     3.141592653589793, 1.0};
    size_t k;
    for (k = 0; k < ARRAY_COUNT(samples); k++) {
        handoff_value *v = handoff_value_new_real(samples[k]);
        double out = 77.0;
        if (!CHECK(v != NULL)) continue;
        CHECK_EQ_INT(handoff_value_get_kind(v), HANDOFF_VALUE_REAL);
        CHECK_OK(handoff_value_get_real(v, &out));
        if (!CHECK(out == samples[k] && signbit(out) == signbit(samples[k])))
            CHECK_FAIL("sample %zu: %.17g", k, out);
        check_value_round_trip(v, "real");
        handoff_value_free(v);
    }
    {
        handoff_value *inf = handoff_value_new_real(INFINITY);
        handoff_value *ninf = handoff_value_new_real(-INFINITY);
        handoff_value *nan_value = handoff_value_new_real(NAN); /* never fails */
        double out = 0.0;
        int64_t i = 5;
        if (CHECK(inf != NULL)) {
            CHECK_OK(handoff_value_get_real(inf, &out));
            CHECK(isinf(out) && out > 0);
            check_value_round_trip(inf, "+infinity");
        }
        if (CHECK(ninf != NULL)) {
            CHECK_OK(handoff_value_get_real(ninf, &out));
            CHECK(isinf(out) && out < 0);
            check_value_round_trip(ninf, "-infinity");
        }
        if (CHECK(nan_value != NULL)) {
            CHECK_EQ_INT(handoff_value_get_kind(nan_value), HANDOFF_VALUE_REAL);
            CHECK_OK(handoff_value_get_real(nan_value, &out));
            CHECK(isnan(out));
        }
        CHECK_STATUS(handoff_value_get_integer(inf, &i), HANDOFF_E_TYPE_MISMATCH);
        CHECK_EQ_INT(i, 5);
        CHECK_STATUS(handoff_value_get_real(inf, NULL), HANDOFF_E_INVALID_ARGUMENT);
        handoff_value_free(inf);
        handoff_value_free(ninf);
        handoff_value_free(nan_value);
    }
}

static void test_value_string(void) {
    static const char *const samples[] = {
        "hello",
        "",
        "caf\xc3\xa9",                                  /* é */
        "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",         /* 日本語 */
        "emoji \xf0\x9f\x98\x80 and \xe2\x82\xac",      /* 😀 € */
        "e\xcc\x81",                                    /* e + combining acute, kept as is */
        "\xef\xbf\xbf",                                 /* U+FFFF, a valid scalar */
        "\xf4\x8f\xbf\xbf",                             /* U+10FFFF */
    };
    size_t k;
    for (k = 0; k < ARRAY_COUNT(samples); k++) {
        handoff_value *v = str_value(samples[k]);
        const char *s;
        size_t length = 9999;
        if (!CHECK(v != NULL)) {
            CHECK_FAIL("sample %zu refused: %s", k, handoff_last_error_message());
            continue;
        }
        CHECK_EQ_INT(handoff_value_get_kind(v), HANDOFF_VALUE_STRING);
        s = handoff_value_get_string(v, &length);
        if (CHECK(s != NULL)) {
            if (!CHECK_EQ_STR(s, samples[k])) CHECK_FAIL("sample %zu", k);
            CHECK_EQ_INT(length, strlen(samples[k]));
        }
        /* Borrowed pointer stays the same/valid while the value lives. */
        CHECK(handoff_value_get_string(v, NULL) != NULL);
        check_value_round_trip(v, samples[k]);
        handoff_value_free(v);
    }

    /* The input is copied: changing the caller's buffer changes nothing. */
    {
        char buffer[] = "mutable";
        handoff_value *v = str_value(buffer);
        buffer[0] = 'X';
        if (CHECK(v != NULL)) CHECK_EQ_STR(handoff_value_get_string(v, NULL), "mutable");
        handoff_value_free(v);
    }

    /* Invalid UTF-8 is refused. */
    {
        static const char *const invalid[] = {
            "\xff",                 /* never valid */
            "abc\xfe",              /* never valid */
            "\xc3\x28",             /* bad continuation */
            "\xc0\xaf",             /* overlong '/' */
            "\xe0\x80\xaf",         /* overlong */
            "\xed\xa0\x80",         /* UTF-16 surrogate D800 */
            "\xf4\x90\x80\x80",     /* above U+10FFFF */
            "\xe2\x82",             /* truncated sequence */
            "\x80",                 /* lone continuation byte */
        };
        for (k = 0; k < ARRAY_COUNT(invalid); k++) {
            handoff_value *v;
            prime_error(HANDOFF_E_INVALID_VALUE);
            v = handoff_value_new_string(invalid[k]);
            if (!CHECK(v == NULL)) CHECK_FAIL("invalid UTF-8 sample %zu accepted", k);
            if (!CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_INVALID_VALUE))
                CHECK_FAIL("invalid UTF-8 sample %zu", k);
            handoff_value_free(v);
        }
    }
    CHECK_NULL_ERR(handoff_value_new_string(NULL), HANDOFF_E_INVALID_ARGUMENT);
}

static void test_value_data(void) {
    static const unsigned char with_nuls[] = {0x00, 0x00, 0x41, 0x00, 0xFF, 0x00, 0x80, 0x00};
    unsigned char source[300];
    size_t length, k;
    const void *p;
    handoff_value *v, *empty1, *empty2, *big;

    v = handoff_value_new_data(with_nuls, sizeof with_nuls);
    if (CHECK(v != NULL)) {
        CHECK_EQ_INT(handoff_value_get_kind(v), HANDOFF_VALUE_DATA);
        length = 0;
        p = handoff_value_get_data(v, &length);
        CHECK(p != NULL);
        CHECK_EQ_INT(length, sizeof with_nuls);
        CHECK(p != NULL && memcmp(p, with_nuls, sizeof with_nuls) == 0);
        CHECK(handoff_value_get_data(v, NULL) != NULL);
        CHECK_EQ_INT(handoff_value_count(v), 0);
        check_value_round_trip(v, "data with NULs");
    }

    /* Empty data: from NULL and from a pointer with length 0. */
    empty1 = handoff_value_new_data(NULL, 0);
    empty2 = handoff_value_new_data(with_nuls, 0);
    if (CHECK(empty1 != NULL && empty2 != NULL)) {
        CHECK_EQ_INT(handoff_value_get_kind(empty1), HANDOFF_VALUE_DATA);
        length = 123;
        p = handoff_value_get_data(empty1, &length);
        CHECK(p != NULL); /* never NULL for a data value, even an empty one */
        CHECK_EQ_INT(length, 0);
        CHECK(handoff_value_equal(empty1, empty2));
        CHECK(!handoff_value_equal(empty1, v));
        check_value_round_trip(empty1, "empty data");
    }

    /* Copied at construction. */
    for (k = 0; k < sizeof source; k++) source[k] = (unsigned char)(k * 7);
    big = handoff_value_new_data(source, sizeof source);
    memset(source, 0, sizeof source);
    if (CHECK(big != NULL)) {
        const unsigned char *q = (const unsigned char *)handoff_value_get_data(big, &length);
        CHECK_EQ_INT(length, sizeof source);
        CHECK(q != NULL && q[1] == 7 && q[299] == (unsigned char)(299 * 7));
        check_value_round_trip(big, "300 bytes of data");
    }

    CHECK_NULL_ERR(handoff_value_new_data(NULL, 1), HANDOFF_E_INVALID_ARGUMENT);

    /* Not a string: a data value read as a string is a mismatch. */
    if (v != NULL) CHECK_NULL_ERR(handoff_value_get_string(v, NULL), HANDOFF_E_TYPE_MISMATCH);

    handoff_value_free(v);
    handoff_value_free(empty1);
    handoff_value_free(empty2);
    handoff_value_free(big);
}

static void test_value_date(void) {
    static const double samples[] = {0.0, 1700000000.0, 1700000000.5, -86400.25, 978307200.0,
                                     4102444800.0, -2208988800.0};
    size_t k;
    for (k = 0; k < ARRAY_COUNT(samples); k++) {
        handoff_value *v = handoff_value_new_date(samples[k]);
        double out = -1.0;
        if (!CHECK(v != NULL)) continue;
        CHECK_EQ_INT(handoff_value_get_kind(v), HANDOFF_VALUE_DATE);
        CHECK_OK(handoff_value_get_date(v, &out));
        if (!CHECK(fabs(out - samples[k]) < 1e-6)) CHECK_FAIL("date %.6f read %.6f", samples[k], out);
        check_value_round_trip(v, "date");
        handoff_value_free(v);
    }
    {
        handoff_value *date = handoff_value_new_date(10.0);
        handoff_value *real = handoff_value_new_real(10.0);
        double out = 1.0;
        CHECK(!handoff_value_equal(date, real));
        CHECK_STATUS(handoff_value_get_real(date, &out), HANDOFF_E_TYPE_MISMATCH);
        CHECK_STATUS(handoff_value_get_date(real, &out), HANDOFF_E_TYPE_MISMATCH);
        CHECK(out == 1.0);
        CHECK_STATUS(handoff_value_get_date(date, NULL), HANDOFF_E_INVALID_ARGUMENT);
        handoff_value_free(date);
        handoff_value_free(real);
    }
    CHECK_NULL_ERR(handoff_value_new_date(INFINITY), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_value_new_date(-INFINITY), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_value_new_date(NAN), HANDOFF_E_INVALID_VALUE);
}

static void test_value_url(void) {
    static const char *const valid[] = {
        "https://example.com/path?q=1#frag",
        "http://example.com/",
        "https://example.com:8443/a/b",
        "mailto:someone@example.com",
        "ftp://files.example.com/x.txt",
        "x-myapp://open/document/42",
        "file:///tmp/a.txt",
    };
    size_t k;
    for (k = 0; k < ARRAY_COUNT(valid); k++) {
        handoff_value *v = handoff_value_new_url(valid[k]);
        if (!CHECK(v != NULL)) {
            CHECK_FAIL("URL %s refused: %s", valid[k], handoff_last_error_message());
            continue;
        }
        CHECK_EQ_INT(handoff_value_get_kind(v), HANDOFF_VALUE_URL);
        CHECK_EQ_STR(handoff_value_get_url(v), valid[k]);
        /* A URL is not a string. */
        CHECK_NULL_ERR(handoff_value_get_string(v, NULL), HANDOFF_E_TYPE_MISMATCH);
        check_value_round_trip(v, valid[k]);
        handoff_value_free(v);
    }
    CHECK_NULL_ERR(handoff_value_new_url("no scheme"), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_value_new_url("/relative/path"), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_value_new_url("relative/path.html"), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_value_new_url(""), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_value_new_url("https://ex\xff" "ample.com/"), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_value_new_url(NULL), HANDOFF_E_INVALID_ARGUMENT);
    {
        handoff_value *s = str_value("https://example.com/");
        handoff_value *u = handoff_value_new_url("https://example.com/");
        CHECK_NULL_ERR(handoff_value_get_url(s), HANDOFF_E_TYPE_MISMATCH);
        CHECK(!handoff_value_equal(s, u));
        handoff_value_free(s);
        handoff_value_free(u);
    }
}

static void test_value_type_mismatch(void) {
    handoff_value *i = int_value(12);
    handoff_value *s = str_value("12");
    handoff_value *a = handoff_value_new_array();
    handoff_value *d = handoff_value_new_dictionary();
    handoff_value *set = handoff_value_new_set();
    int b = 3;
    int64_t n = 4;
    double r = 5.0;
    size_t length = 77;

    /* An integer read as every other kind. */
    CHECK_NULL_ERR(handoff_value_get_string(i, NULL), HANDOFF_E_TYPE_MISMATCH);
    CHECK_NULL_ERR(handoff_value_get_string(i, &length), HANDOFF_E_TYPE_MISMATCH);
    CHECK_NULL_ERR(handoff_value_get_url(i), HANDOFF_E_TYPE_MISMATCH);
    length = 77;
    CHECK_NULL_ERR(handoff_value_get_data(i, &length), HANDOFF_E_TYPE_MISMATCH);
    CHECK_EQ_INT(length, 0); /* *length 0 for another kind */
    CHECK_STATUS(handoff_value_get_boolean(i, &b), HANDOFF_E_TYPE_MISMATCH);
    CHECK_STATUS(handoff_value_get_real(i, &r), HANDOFF_E_TYPE_MISMATCH);
    CHECK_STATUS(handoff_value_get_date(i, &r), HANDOFF_E_TYPE_MISMATCH);
    CHECK_EQ_INT(b, 3);
    CHECK(r == 5.0);

    /* A string holding digits is still a string. */
    CHECK_STATUS(handoff_value_get_integer(s, &n), HANDOFF_E_TYPE_MISMATCH);
    CHECK_EQ_INT(n, 4);
    CHECK_NULL_ERR(handoff_value_get_data(s, NULL), HANDOFF_E_TYPE_MISMATCH);

    /* Containers read as scalars and vice versa. */
    CHECK_STATUS(handoff_value_get_integer(a, &n), HANDOFF_E_TYPE_MISMATCH);
    CHECK_NULL_ERR(handoff_value_get_string(d, NULL), HANDOFF_E_TYPE_MISMATCH);
    CHECK_STATUS(handoff_value_array_append(d, i), HANDOFF_E_TYPE_MISMATCH);
    CHECK_STATUS(handoff_value_array_append(set, i), HANDOFF_E_TYPE_MISMATCH);
    CHECK_STATUS(handoff_value_array_append(i, s), HANDOFF_E_TYPE_MISMATCH);
    CHECK_STATUS(handoff_value_dictionary_set(a, "k", i), HANDOFF_E_TYPE_MISMATCH);
    CHECK_STATUS(handoff_value_dictionary_set(s, "k", i), HANDOFF_E_TYPE_MISMATCH);
    CHECK_STATUS(handoff_value_dictionary_remove(a, "k"), HANDOFF_E_TYPE_MISMATCH);
    CHECK_STATUS(handoff_value_set_add(a, i), HANDOFF_E_TYPE_MISMATCH);
    CHECK_STATUS(handoff_value_set_add(d, i), HANDOFF_E_TYPE_MISMATCH);
    CHECK_EQ_INT(handoff_value_count(a), 0);
    CHECK_EQ_INT(handoff_value_count(d), 0);
    CHECK_EQ_INT(handoff_value_count(set), 0);

    /* Borrowed children of a wrong-kind container: NULL, error set. The
     * header does not name the code; a mismatch is the natural one. */
    prime_error(HANDOFF_E_TYPE_MISMATCH);
    CHECK(handoff_value_array_get(d, 0) == NULL);
    CHECK(handoff_last_error_code() == HANDOFF_E_TYPE_MISMATCH ||
          handoff_last_error_code() == HANDOFF_E_INVALID_ARGUMENT);
    prime_error(HANDOFF_E_TYPE_MISMATCH);
    CHECK(handoff_value_dictionary_get(a, "k") == NULL);
    CHECK(handoff_last_error_code() == HANDOFF_E_TYPE_MISMATCH ||
          handoff_last_error_code() == HANDOFF_E_INVALID_ARGUMENT);
    prime_error(HANDOFF_E_TYPE_MISMATCH);
    CHECK(handoff_value_dictionary_key_at(i, 0) == NULL);
    CHECK(handoff_last_error_code() == HANDOFF_E_TYPE_MISMATCH ||
          handoff_last_error_code() == HANDOFF_E_INVALID_ARGUMENT);
    prime_error(HANDOFF_E_TYPE_MISMATCH);
    CHECK(handoff_value_set_member_at(a, 0) == NULL);
    CHECK(handoff_last_error_code() == HANDOFF_E_TYPE_MISMATCH ||
          handoff_last_error_code() == HANDOFF_E_INVALID_ARGUMENT);

    handoff_value_free(i);
    handoff_value_free(s);
    handoff_value_free(a);
    handoff_value_free(d);
    handoff_value_free(set);
}

/* ------------------------------------------------------------------------ */
/* Containers                                                               */
/* ------------------------------------------------------------------------ */

static void test_array(void) {
    handoff_value *array = handoff_value_new_array();
    handoff_value *item;
    const handoff_value *got;
    size_t k;
    if (!CHECK(array != NULL)) return;
    CHECK_EQ_INT(handoff_value_get_kind(array), HANDOFF_VALUE_ARRAY);
    CHECK_EQ_INT(handoff_value_count(array), 0);
    CHECK_NULL_ERR(handoff_value_array_get(array, 0), HANDOFF_E_INVALID_ARGUMENT);

    for (k = 0; k < 20; k++) array_push(array, int_value((int64_t)k * 10));
    array_push(array, str_value("last"));
    CHECK_EQ_INT(handoff_value_count(array), 21);
    for (k = 0; k < 20; k++) {
        got = handoff_value_array_get(array, k);
        if (CHECK(got != NULL)) CHECK_EQ_INT(read_integer(got), (int64_t)k * 10);
    }
    got = handoff_value_array_get(array, 20);
    if (CHECK(got != NULL)) CHECK_EQ_STR(handoff_value_get_string(got, NULL), "last");

    /* Out of range. */
    CHECK_NULL_ERR(handoff_value_array_get(array, 21), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_value_array_get(array, (size_t)-1), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_value_array_get(NULL, 0), HANDOFF_E_INVALID_ARGUMENT);

    /* Appending copies: the caller's item stays the caller's. */
    item = handoff_value_new_array();
    array_push(item, int_value(1));
    CHECK_OK(handoff_value_array_append(array, item));
    array_push(item, int_value(2)); /* changes the caller's copy only */
    got = handoff_value_array_get(array, 21);
    if (CHECK(got != NULL)) {
        CHECK_EQ_INT(handoff_value_get_kind(got), HANDOFF_VALUE_ARRAY);
        CHECK_EQ_INT(handoff_value_count(got), 1);
    }
    handoff_value_free(item);
    CHECK_EQ_INT(handoff_value_count(array), 22);

    /* Duplicates are kept in an array. */
    array_push(array, int_value(0));
    CHECK_EQ_INT(handoff_value_count(array), 23);

    /* Bad arguments. */
    CHECK_STATUS(handoff_value_array_append(array, NULL), HANDOFF_E_INVALID_ARGUMENT);
    item = int_value(1);
    CHECK_STATUS(handoff_value_array_append(NULL, item), HANDOFF_E_INVALID_ARGUMENT);
    handoff_value_free(item);
    CHECK_EQ_INT(handoff_value_count(array), 23);
    check_value_round_trip(array, "array");
    handoff_value_free(array);
}

static void test_dictionary(void) {
    /* Keys in UTF-8 byte order (not UTF-16 order: U+FF5A sorts before
     * U+1F600 in UTF-8 bytes, after it in UTF-16 code units). */
    static const char *const sorted_keys[] = {
        "$classy", "1", "A", "Z", "_", "a", "aa", "ab", "b", "caf\xc3\xa9", "z",
        "\xc3\xa9",          /* é U+00E9 */
        "\xef\xbd\x9a",      /* ｚ U+FF5A */
        "\xf0\x9f\x98\x80",  /* 😀 U+1F600 */
    };
    static const size_t insert_order[] = {8, 13, 0, 5, 12, 3, 10, 1, 7, 11, 2, 9, 4, 6};
    handoff_value *dict = handoff_value_new_dictionary();
    const handoff_value *got;
    handoff_value *item;
    size_t k, n = ARRAY_COUNT(sorted_keys);
    if (!CHECK(dict != NULL)) return;
    CHECK_EQ_INT(handoff_value_get_kind(dict), HANDOFF_VALUE_DICTIONARY);
    CHECK_EQ_INT(handoff_value_count(dict), 0);
    CHECK_NULL_ERR(handoff_value_dictionary_key_at(dict, 0), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_value_dictionary_value_at(dict, 0), HANDOFF_E_INVALID_ARGUMENT);

    for (k = 0; k < n; k++) {
        size_t idx = insert_order[k];
        dict_put(dict, sorted_keys[idx], int_value((int64_t)idx));
    }
    CHECK_EQ_INT(handoff_value_count(dict), n);

    /* get */
    for (k = 0; k < n; k++) {
        got = handoff_value_dictionary_get(dict, sorted_keys[k]);
        if (CHECK(got != NULL)) CHECK_EQ_INT(read_integer(got), (int64_t)k);
    }
    CHECK_NULL_ERR(handoff_value_dictionary_get(dict, "absent"), HANDOFF_E_NOT_FOUND);
    CHECK_NULL_ERR(handoff_value_dictionary_get(dict, "A "), HANDOFF_E_NOT_FOUND);

    /* key_at / value_at ordering */
    for (k = 0; k < n; k++) {
        const char *key = handoff_value_dictionary_key_at(dict, k);
        got = handoff_value_dictionary_value_at(dict, k);
        if (!CHECK_EQ_STR(key, sorted_keys[k])) CHECK_FAIL("key_at(%zu)", k);
        if (CHECK(got != NULL)) CHECK_EQ_INT(read_integer(got), (int64_t)k);
    }
    CHECK_NULL_ERR(handoff_value_dictionary_key_at(dict, n), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_value_dictionary_value_at(dict, n), HANDOFF_E_INVALID_ARGUMENT);

    /* replace */
    dict_put(dict, "b", str_value("replaced"));
    CHECK_EQ_INT(handoff_value_count(dict), n);
    got = handoff_value_dictionary_get(dict, "b");
    if (CHECK(got != NULL)) CHECK_EQ_STR(handoff_value_get_string(got, NULL), "replaced");
    CHECK_EQ_STR(handoff_value_dictionary_key_at(dict, 8), "b");

    /* remove */
    CHECK_OK(handoff_value_dictionary_remove(dict, "b"));
    CHECK_EQ_INT(handoff_value_count(dict), n - 1);
    CHECK_NULL_ERR(handoff_value_dictionary_get(dict, "b"), HANDOFF_E_NOT_FOUND);
    CHECK_STATUS(handoff_value_dictionary_remove(dict, "b"), HANDOFF_E_NOT_FOUND);
    CHECK_EQ_STR(handoff_value_dictionary_key_at(dict, 8), "caf\xc3\xa9");
    CHECK_EQ_STR(handoff_value_dictionary_key_at(dict, 7), "ab");

    /* Reserved and invalid keys; nothing changes. */
    item = int_value(1);
    CHECK_STATUS(handoff_value_dictionary_set(dict, "$class", item), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_value_dictionary_get(dict, "$class"), HANDOFF_E_NOT_FOUND);
    CHECK_STATUS(handoff_value_dictionary_set(dict, "bad\xff", item), HANDOFF_E_INVALID_VALUE);
    CHECK_STATUS(handoff_value_dictionary_set(dict, "\xed\xa0\x80", item), HANDOFF_E_INVALID_VALUE);
    CHECK_STATUS(handoff_value_dictionary_set(dict, NULL, item), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_value_dictionary_set(dict, "k", NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_value_dictionary_set(NULL, "k", item), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_value_dictionary_remove(dict, NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_value_dictionary_remove(NULL, "a"), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_value_dictionary_get(NULL, "a"), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_EQ_INT(handoff_value_count(dict), n - 1);
    handoff_value_free(item);

    /* "$class" nested inside a dictionary is refused too (by set). */
    {
        handoff_value *inner = handoff_value_new_dictionary();
        item = str_value("NSNull");
        CHECK_STATUS(handoff_value_dictionary_set(inner, "$class", item), HANDOFF_E_INVALID_VALUE);
        CHECK_EQ_INT(handoff_value_count(inner), 0);
        handoff_value_free(item);
        handoff_value_free(inner);
    }

    /* Empty key is an ordinary key. */
    dict_put(dict, "", int_value(-1));
    CHECK_EQ_STR(handoff_value_dictionary_key_at(dict, 0), "");

    check_value_round_trip(dict, "dictionary");
    handoff_value_free(dict);
}

/* Keys are compared as UTF-8 bytes, like their order: "\u00e9" and
 * "e\u0301" (canonically equivalent, different bytes) are two keys, as they
 * are two keys in a property list. */
/* Keys are Unicode strings: canonically equivalent spellings (precomposed
 * and decomposed) are one key, as the header documents. */
static void test_dictionary_keys_are_canonical(void) {
    static const char composed[] = "\xc3\xa9";      /* U+00E9 */
    static const char decomposed[] = "e\xcc\x81";   /* e + U+0301 */
    handoff_value *dict = handoff_value_new_dictionary();
    const handoff_value *got;
    if (!CHECK(dict != NULL)) return;
    dict_put(dict, composed, int_value(1));
    dict_put(dict, decomposed, int_value(2));
    CHECK_EQ_INT(handoff_value_count(dict), 1);
    got = handoff_value_dictionary_get(dict, composed);
    if (CHECK(got != NULL)) CHECK_EQ_INT(read_integer(got), 2);
    got = handoff_value_dictionary_get(dict, decomposed);
    if (CHECK(got != NULL)) CHECK_EQ_INT(read_integer(got), 2);
    check_value_round_trip(dict, "canonically equivalent keys");
    handoff_value_free(dict);
}

/* Adding a container to itself adds a copy of its current contents. */
static void test_container_added_to_itself(void) {
    handoff_value *array = handoff_value_new_array();
    handoff_value *dict = handoff_value_new_dictionary();
    handoff_value *set = handoff_value_new_set();
    handoff_value *one = int_value(1);
    const handoff_value *inner;
    if (!CHECK(array && dict && set && one)) return;
    CHECK_STATUS(handoff_value_array_append(array, one), HANDOFF_OK);
    CHECK_STATUS(handoff_value_array_append(array, array), HANDOFF_OK);
    CHECK_EQ_INT(handoff_value_count(array), 2);
    inner = handoff_value_array_get(array, 1);
    if (CHECK(inner != NULL)) {
        CHECK_EQ_INT(handoff_value_get_kind(inner), HANDOFF_VALUE_ARRAY);
        CHECK_EQ_INT(handoff_value_count(inner), 1);
    }
    CHECK_STATUS(handoff_value_dictionary_set(dict, "a", one), HANDOFF_OK);
    CHECK_STATUS(handoff_value_dictionary_set(dict, "self", dict), HANDOFF_OK);
    CHECK_EQ_INT(handoff_value_count(dict), 2);
    inner = handoff_value_dictionary_get(dict, "self");
    if (CHECK(inner != NULL)) CHECK_EQ_INT(handoff_value_count(inner), 1);
    CHECK_STATUS(handoff_value_set_add(set, set), HANDOFF_OK);
    CHECK_EQ_INT(handoff_value_count(set), 1);
    inner = handoff_value_set_member_at(set, 0);
    if (CHECK(inner != NULL)) {
        CHECK_EQ_INT(handoff_value_get_kind(inner), HANDOFF_VALUE_SET);
        CHECK_EQ_INT(handoff_value_count(inner), 0);
    }
    handoff_value_free(one);
    handoff_value_free(set);
    handoff_value_free(dict);
    handoff_value_free(array);
}

static void test_set(void) {
    handoff_value *set = handoff_value_new_set();
    handoff_value *a1, *a2;
    const handoff_value *first[8];
    size_t k, n;
    int seen_int1 = 0, seen_int2 = 0, seen_str = 0, seen_real = 0, seen_array = 0;
    if (!CHECK(set != NULL)) return;
    CHECK_EQ_INT(handoff_value_get_kind(set), HANDOFF_VALUE_SET);
    CHECK_NULL_ERR(handoff_value_set_member_at(set, 0), HANDOFF_E_INVALID_ARGUMENT);

    set_put(set, int_value(1));
    set_put(set, int_value(2));
    set_put(set, int_value(1));              /* duplicate: no change */
    set_put(set, str_value("1"));            /* a different member */
    set_put(set, handoff_value_new_real(1.0)); /* a different member */
    set_put(set, str_value("1"));            /* duplicate */
    CHECK_EQ_INT(handoff_value_count(set), 4);

    /* Equal containers collapse too. */
    a1 = handoff_value_new_array();
    a2 = handoff_value_new_array();
    array_push(a1, int_value(1));
    array_push(a1, str_value("x"));
    array_push(a2, int_value(1));
    array_push(a2, str_value("x"));
    CHECK_OK(handoff_value_set_add(set, a1));
    CHECK_OK(handoff_value_set_add(set, a2));
    CHECK_EQ_INT(handoff_value_count(set), 5);

    n = handoff_value_count(set);
    for (k = 0; k < n && k < ARRAY_COUNT(first); k++) {
        const handoff_value *m = handoff_value_set_member_at(set, k);
        int64_t i;
        double r;
        first[k] = m;
        if (!CHECK(m != NULL)) continue;
        switch (handoff_value_get_kind(m)) {
        case HANDOFF_VALUE_INTEGER:
            CHECK_OK(handoff_value_get_integer(m, &i));
            if (i == 1) seen_int1++;
            else if (i == 2) seen_int2++;
            else CHECK_FAIL("unexpected integer %lld", (long long)i);
            break;
        case HANDOFF_VALUE_STRING:
            CHECK_EQ_STR(handoff_value_get_string(m, NULL), "1");
            seen_str++;
            break;
        case HANDOFF_VALUE_REAL:
            CHECK_OK(handoff_value_get_real(m, &r));
            CHECK(r == 1.0);
            seen_real++;
            break;
        case HANDOFF_VALUE_ARRAY:
            CHECK(handoff_value_equal(m, a1));
            seen_array++;
            break;
        default:
            CHECK_FAIL("unexpected member kind %d", (int)handoff_value_get_kind(m));
        }
    }
    CHECK(seen_int1 == 1 && seen_int2 == 1 && seen_str == 1 && seen_real == 1 && seen_array == 1);
    /* The order stays the same while the set is unchanged. */
    for (k = 0; k < n && k < ARRAY_COUNT(first); k++) {
        const handoff_value *m = handoff_value_set_member_at(set, k);
        CHECK(m != NULL && first[k] != NULL && handoff_value_equal(m, first[k]));
    }
    CHECK_NULL_ERR(handoff_value_set_member_at(set, n), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_value_set_member_at(NULL, 0), HANDOFF_E_INVALID_ARGUMENT);

    CHECK_STATUS(handoff_value_set_add(set, NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_value_set_add(NULL, a1), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_EQ_INT(handoff_value_count(set), 5);

    /* Sets compare equal regardless of insertion order. */
    {
        handoff_value *x = handoff_value_new_set();
        handoff_value *y = handoff_value_new_set();
        set_put(x, int_value(3));
        set_put(x, str_value("three"));
        set_put(y, str_value("three"));
        set_put(y, int_value(3));
        set_put(y, int_value(3));
        CHECK(handoff_value_equal(x, y));
        check_value_round_trip(x, "small set");
        handoff_value_free(x);
        handoff_value_free(y);
    }
    check_value_round_trip(set, "set");
    handoff_value_free(a1);
    handoff_value_free(a2);
    handoff_value_free(set);
}

static void test_nested_containers(void) {
    /* dictionary -> array -> set -> scalars, and dictionary -> dictionary ->
     * dictionary -> string. */
    handoff_value *root = handoff_value_new_dictionary();
    handoff_value *array = handoff_value_new_array();
    handoff_value *set = handoff_value_new_set();
    handoff_value *d2 = handoff_value_new_dictionary();
    handoff_value *d3 = handoff_value_new_dictionary();
    const handoff_value *level1, *level2, *level3;

    set_put(set, int_value(5));
    set_put(set, str_value("five"));
    array_push(array, str_value("before"));
    CHECK_OK(handoff_value_array_append(array, set));
    array_push(array, str_value("after"));
    CHECK_OK(handoff_value_dictionary_set(root, "list", array));
    dict_put(d3, "leaf", str_value("deep"));
    CHECK_OK(handoff_value_dictionary_set(d2, "level3", d3));
    CHECK_OK(handoff_value_dictionary_set(root, "level2", d2));

    CHECK_EQ_INT(handoff_value_count(root), 2);
    level1 = handoff_value_dictionary_get(root, "list");
    if (CHECK(level1 != NULL)) {
        CHECK_EQ_INT(handoff_value_get_kind(level1), HANDOFF_VALUE_ARRAY);
        CHECK_EQ_INT(handoff_value_count(level1), 3);
        level2 = handoff_value_array_get(level1, 1);
        if (CHECK(level2 != NULL)) {
            CHECK_EQ_INT(handoff_value_get_kind(level2), HANDOFF_VALUE_SET);
            CHECK_EQ_INT(handoff_value_count(level2), 2);
            CHECK(handoff_value_equal(level2, set));
            level3 = handoff_value_set_member_at(level2, 0);
            CHECK(level3 != NULL);
        }
        level2 = handoff_value_array_get(level1, 2);
        if (CHECK(level2 != NULL)) CHECK_EQ_STR(handoff_value_get_string(level2, NULL), "after");
    }
    level1 = handoff_value_dictionary_get(root, "level2");
    if (CHECK(level1 != NULL)) {
        level2 = handoff_value_dictionary_get(level1, "level3");
        if (CHECK(level2 != NULL)) {
            level3 = handoff_value_dictionary_get(level2, "leaf");
            if (CHECK(level3 != NULL)) CHECK_EQ_STR(handoff_value_get_string(level3, NULL), "deep");
        }
    }
    check_value_round_trip(root, "nested containers");
    handoff_value_free(root);
    handoff_value_free(array);
    handoff_value_free(set);
    handoff_value_free(d2);
    handoff_value_free(d3);
}

static void test_value_equal(void) {
    handoff_value *a = make_rich_dictionary();
    handoff_value *b = make_rich_dictionary();
    handoff_value *d1 = handoff_value_new_dictionary();
    handoff_value *d2 = handoff_value_new_dictionary();
    handoff_value *arr1 = handoff_value_new_array();
    handoff_value *arr2 = handoff_value_new_array();
    handoff_value *x = str_value("x");
    handoff_value *y = str_value("y");
    handoff_value *n1 = handoff_value_new_null();
    handoff_value *n2 = handoff_value_new_null();
    handoff_value *f = handoff_value_new_boolean(0);
    handoff_value *zero = int_value(0);

    CHECK_EQ_INT(handoff_value_equal(a, b), 1);
    CHECK_EQ_INT(handoff_value_equal(a, a), 1);
    CHECK_EQ_INT(handoff_value_equal(a, NULL), 0);
    CHECK_EQ_INT(handoff_value_equal(NULL, a), 0);
    CHECK_EQ_INT(handoff_value_equal(NULL, NULL), 0);
    CHECK_EQ_INT(handoff_value_equal(x, y), 0);
    CHECK_EQ_INT(handoff_value_equal(n1, n2), 1);
    CHECK_EQ_INT(handoff_value_equal(f, zero), 0);
    CHECK_EQ_INT(handoff_value_equal(f, n1), 0);

    /* Dictionaries: insertion order does not matter. */
    dict_put(d1, "k1", int_value(1));
    dict_put(d1, "k2", int_value(2));
    dict_put(d2, "k2", int_value(2));
    dict_put(d2, "k1", int_value(1));
    CHECK_EQ_INT(handoff_value_equal(d1, d2), 1);
    dict_put(d2, "k1", handoff_value_new_real(1.0));
    CHECK_EQ_INT(handoff_value_equal(d1, d2), 0);

    /* Arrays: order matters. */
    array_push(arr1, int_value(1));
    array_push(arr1, int_value(2));
    array_push(arr2, int_value(2));
    array_push(arr2, int_value(1));
    CHECK_EQ_INT(handoff_value_equal(arr1, arr2), 0);
    CHECK_EQ_INT(handoff_value_equal(arr1, d1), 0);

    /* A deep difference makes them differ. */
    dict_put(b, "string", str_value("other"));
    CHECK_EQ_INT(handoff_value_equal(a, b), 0);

    handoff_value_free(a);
    handoff_value_free(b);
    handoff_value_free(d1);
    handoff_value_free(d2);
    handoff_value_free(arr1);
    handoff_value_free(arr2);
    handoff_value_free(x);
    handoff_value_free(y);
    handoff_value_free(n1);
    handoff_value_free(n2);
    handoff_value_free(f);
    handoff_value_free(zero);
}

static void test_value_copy(void) {
    handoff_value *original = make_rich_dictionary();
    handoff_value *copy = handoff_value_copy(original);
    handoff_value *copy2;
    const handoff_value *inner;
    if (!CHECK(original != NULL && copy != NULL)) {
        handoff_value_free(original);
        handoff_value_free(copy);
        return;
    }
    CHECK(copy != original);
    CHECK(handoff_value_equal(copy, original));
    CHECK_EQ_INT(handoff_value_count(copy), handoff_value_count(original));

    /* Modify the original after copying, at the top and deep inside. */
    dict_put(original, "added", int_value(1));
    dict_put(original, "int", int_value(43));
    CHECK_OK(handoff_value_dictionary_remove(original, "string"));
    CHECK(!handoff_value_equal(copy, original));
    CHECK_NULL_ERR(handoff_value_dictionary_get(copy, "added"), HANDOFF_E_NOT_FOUND);
    inner = handoff_value_dictionary_get(copy, "int");
    if (CHECK(inner != NULL)) CHECK_EQ_INT(read_integer(inner), -42);
    inner = handoff_value_dictionary_get(copy, "string");
    if (CHECK(inner != NULL))
        CHECK_EQ_STR(handoff_value_get_string(inner, NULL), "caf\xc3\xa9 \xe2\x98\x95 \xf0\x9f\x98\x80");

    /* Deep: replace the nested dictionary's array in a second copy. */
    copy2 = handoff_value_copy(copy);
    {
        handoff_value *fresh = make_rich_dictionary();
        CHECK(handoff_value_equal(copy2, fresh));
        handoff_value_free(fresh);
    }
    handoff_value_free(original); /* copies outlive the original */
    inner = handoff_value_dictionary_get(copy2, "inner");
    if (CHECK(inner != NULL)) {
        const handoff_value *arr = handoff_value_dictionary_get(inner, "array");
        CHECK(arr != NULL && handoff_value_count(arr) == 3);
    }
    {
        handoff_value *modified_inner = handoff_value_new_dictionary();
        dict_put(modified_inner, "only", int_value(1));
        CHECK_OK(handoff_value_dictionary_set(copy2, "inner", modified_inner));
        handoff_value_free(modified_inner);
    }
    inner = handoff_value_dictionary_get(copy, "inner");
    if (CHECK(inner != NULL)) CHECK_EQ_INT(handoff_value_count(inner), 2);

    /* Scalars copy too. */
    {
        handoff_value *s = str_value("scalar");
        handoff_value *sc = handoff_value_copy(s);
        handoff_value_free(s);
        if (CHECK(sc != NULL)) CHECK_EQ_STR(handoff_value_get_string(sc, NULL), "scalar");
        handoff_value_free(sc);
    }
    CHECK_NULL_ERR(handoff_value_copy(NULL), HANDOFF_E_INVALID_ARGUMENT);
    handoff_value_free(copy);
    handoff_value_free(copy2);
}

/* ------------------------------------------------------------------------ */
/* Encode / decode                                                          */
/* ------------------------------------------------------------------------ */

static void test_encode_round_trip_every_kind(void) {
    static const unsigned char bytes[] = {0, 1, 2, 0, 254, 255};
    handoff_value *values[18];
    const char *names[18];
    size_t n = 0, k;
#define ADD(v, name) (values[n] = (v), names[n] = (name), n++)
    ADD(handoff_value_new_null(), "null");
    ADD(handoff_value_new_boolean(1), "true");
    ADD(handoff_value_new_boolean(0), "false");
    ADD(int_value(INT64_MIN), "INT64_MIN");
    ADD(int_value(INT64_MAX), "INT64_MAX");
    ADD(int_value(0), "0");
    ADD(handoff_value_new_real(-1.25), "real");
    ADD(handoff_value_new_real(INFINITY), "infinity");
    ADD(str_value("\xe2\x9c\x93 unicode"), "string");
    ADD(handoff_value_new_data(bytes, sizeof bytes), "data");
    ADD(handoff_value_new_data(NULL, 0), "empty data");
    ADD(handoff_value_new_date(1234567890.75), "date");
    ADD(handoff_value_new_url("https://example.com/a%20b?c=d"), "url");
    ADD(handoff_value_new_array(), "empty array");
    ADD(handoff_value_new_dictionary(), "empty dictionary");
    ADD(handoff_value_new_set(), "empty set");
    ADD(make_rich_dictionary(), "rich dictionary");
#undef ADD
    for (k = 0; k < n; k++) {
        if (!CHECK(values[k] != NULL)) {
            CHECK_FAIL("could not make %s", names[k]);
            continue;
        }
        check_value_round_trip(values[k], names[k]);
        handoff_value_free(values[k]);
    }

    /* Bad arguments. */
    {
        handoff_value *v = int_value(1);
        uint8_t *out = NULL;
        size_t length = 0;
        CHECK_STATUS(handoff_value_encode(NULL, &out, &length), HANDOFF_E_INVALID_ARGUMENT);
        CHECK_STATUS(handoff_value_encode(v, NULL, &length), HANDOFF_E_INVALID_ARGUMENT);
        CHECK_STATUS(handoff_value_encode(v, &out, NULL), HANDOFF_E_INVALID_ARGUMENT);
        CHECK(out == NULL);
        handoff_value_free(v);
    }
    handoff_free(NULL);
}

/* JSON text both ways: kinds kept, the buffer NUL-terminated and owned by
 * the caller, what JSON cannot carry refused with TYPE_MISMATCH, bad text
 * with MALFORMED_DATA. */
static void test_value_json(void) {
    static const char text[] = "{\"b\":[1,2.0,true,null],\"a\":\"\\u00e9\"}";
    handoff_value *v = handoff_value_decode_json(text, sizeof text - 1);
    CHECK(v != NULL);
    CHECK(handoff_value_get_kind(handoff_value_array_get(handoff_value_dictionary_get(v, "b"), 0)) ==
          HANDOFF_VALUE_INTEGER);
    CHECK(handoff_value_get_kind(handoff_value_array_get(handoff_value_dictionary_get(v, "b"), 1)) ==
          HANDOFF_VALUE_REAL);
    char *out = NULL;
    size_t length = 0;
    CHECK_OK(handoff_value_encode_json(v, &out, &length));
    CHECK(out != NULL && out[length] == '\0' && strlen(out) == length);
    CHECK(strcmp(out, "{\"a\":\"\xc3\xa9\",\"b\":[1,2.0,true,null]}") == 0);
    handoff_value *back = handoff_value_decode_json(out, length);
    CHECK(back != NULL && handoff_value_equal(v, back) == 1);
    handoff_free(out);
    handoff_value_free(back);
    handoff_value_free(v);

    /* Not NUL-terminated: only length counts. */
    v = handoff_value_decode_json("[7]garbage", 3);
    CHECK(v != NULL && handoff_value_count(v) == 1);
    handoff_value_free(v);

    handoff_value *data = handoff_value_new_data((const uint8_t *)"x", 1);
    out = NULL;
    CHECK_STATUS(handoff_value_encode_json(data, &out, &length), HANDOFF_E_TYPE_MISMATCH);
    CHECK(out == NULL);
    CHECK_STATUS(handoff_value_encode_json(NULL, &out, &length), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_value_encode_json(data, NULL, &length), HANDOFF_E_INVALID_ARGUMENT);
    handoff_value_free(data);

    static const char *const bad[] = {"", "[1,]", "01", "1e400", "9223372036854775808", "\"\\ud800\"",
                                      "\"a\\u0000\"", "{\"$class\":1}", "\"\xff\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(handoff_value_decode_json(bad[i], strlen(bad[i])) == NULL);
        CHECK(handoff_last_error_code() == HANDOFF_E_MALFORMED_DATA);
    }
    CHECK(handoff_value_decode_json(NULL, 0) == NULL);
    CHECK(handoff_last_error_code() == HANDOFF_E_INVALID_ARGUMENT);
}

/* A chain of `depth` nested arrays with an integer at the bottom. */
static handoff_value *make_nested_arrays(int depth) {
    handoff_value *v = int_value(1);
    int k;
    for (k = 0; k < depth; k++) {
        handoff_value *outer = handoff_value_new_array();
        CHECK_OK(handoff_value_array_append(outer, v));
        handoff_value_free(v);
        v = outer;
    }
    return v;
}

static void test_encode_depth_limit(void) {
    uint8_t *bytes = NULL;
    size_t length = 0;
    handoff_value *ok16 = make_nested_arrays(16);
    handoff_value *bad17 = make_nested_arrays(17);
    handoff_value *bad40 = make_nested_arrays(40);
    handoff_value *mixed;

    CHECK_OK(handoff_value_encode(ok16, &bytes, &length));
    handoff_free(bytes);
    bytes = NULL;
    CHECK_STATUS(handoff_value_encode(bad17, &bytes, &length), HANDOFF_E_INVALID_VALUE);
    CHECK(bytes == NULL);
    CHECK_STATUS(handoff_value_encode(bad40, &bytes, &length), HANDOFF_E_INVALID_VALUE);
    CHECK(bytes == NULL);

    /* Mixed dictionaries and sets count too: 20 levels. */
    {
        int k;
        mixed = handoff_value_new_null();
        for (k = 0; k < 20; k++) {
            handoff_value *outer = (k % 2) ? handoff_value_new_dictionary() : handoff_value_new_set();
            if (k % 2) CHECK_OK(handoff_value_dictionary_set(outer, "k", mixed));
            else CHECK_OK(handoff_value_set_add(outer, mixed));
            handoff_value_free(mixed);
            mixed = outer;
        }
        CHECK_STATUS(handoff_value_encode(mixed, &bytes, &length), HANDOFF_E_INVALID_VALUE);
        CHECK(bytes == NULL);
        handoff_value_free(mixed);
    }
    handoff_value_free(ok16);
    handoff_value_free(bad17);
    handoff_value_free(bad40);
}

/* Decodes hostile bytes: must not crash; either succeeds, or NULL with
 * HANDOFF_E_MALFORMED_DATA. Returns 1 when it decoded. */
static int decode_must_be_safe(const void *bytes, size_t length, const char *what, size_t index) {
    handoff_value *v;
    prime_error(HANDOFF_E_MALFORMED_DATA);
    v = handoff_value_decode(bytes, length);
    if (v == NULL) {
        if (!CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_MALFORMED_DATA))
            CHECK_FAIL("%s #%zu", what, index);
        return 0;
    }
    /* Something decoded: it must be usable. */
    {
        uint8_t *out = NULL;
        size_t out_length = 0;
        handoff_value *copy = handoff_value_copy(v);
        CHECK(handoff_value_equal(v, copy));
        (void)handoff_value_get_kind(v);
        (void)handoff_value_count(v);
        if (handoff_value_encode(v, &out, &out_length) == HANDOFF_OK) handoff_free(out);
        handoff_value_free(copy);
    }
    handoff_value_free(v);
    return 1;
}

static void encode_or_fail(const handoff_value *v, uint8_t **bytes, size_t *length) {
    *bytes = NULL;
    *length = 0;
    if (!CHECK_EQ_INT(handoff_value_encode(v, bytes, length), HANDOFF_OK)) {
        CHECK_FAIL("encode: %s", handoff_last_error_message());
    }
}

static void test_decode_hostile_basics(void) {
    static const uint8_t only_magic[] = {'b', 'p', 'l', 'i', 's', 't', '0', '0'};
    static const char xmlish[] = "<?xml version=\"1.0\"?><plist><integer>1</integer></plist>";
    static const char garbage[] = "this is not a property list at all, not even close.....";
    uint8_t zeros[64];
    memset(zeros, 0, sizeof zeros);

    CHECK_NULL_ERR(handoff_value_decode(NULL, 0), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_value_decode(NULL, 100), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_value_decode(only_magic, 0), HANDOFF_E_MALFORMED_DATA);
    CHECK_NULL_ERR(handoff_value_decode(only_magic, sizeof only_magic), HANDOFF_E_MALFORMED_DATA);
    CHECK_NULL_ERR(handoff_value_decode(only_magic, 5), HANDOFF_E_MALFORMED_DATA);
    CHECK_NULL_ERR(handoff_value_decode(garbage, sizeof garbage - 1), HANDOFF_E_MALFORMED_DATA);
    CHECK_NULL_ERR(handoff_value_decode(zeros, sizeof zeros), HANDOFF_E_MALFORMED_DATA);
    /* A binary decoder: XML is not what it reads (either way, no crash). */
    (void)decode_must_be_safe(xmlish, sizeof xmlish - 1, "xml", 0);
    {
        uint8_t magic_and_zeros[8 + 32];
        memset(magic_and_zeros, 0, sizeof magic_and_zeros);
        memcpy(magic_and_zeros, "bplist00", 8);
        CHECK_NULL_ERR(handoff_value_decode(magic_and_zeros, sizeof magic_and_zeros),
                       HANDOFF_E_MALFORMED_DATA);
    }
}

static void test_decode_truncations(void) {
    handoff_value *v = make_rich_dictionary();
    uint8_t *bytes;
    size_t length, cut;
    encode_or_fail(v, &bytes, &length);
    if (bytes != NULL) {
        CHECK(length > 40);
        for (cut = 0; cut < length; cut++) {
            /* A copy of exactly `cut` bytes, so valgrind sees over-reads. */
            uint8_t *prefix = (uint8_t *)malloc(cut ? cut : 1);
            handoff_value *back;
            if (!CHECK(prefix != NULL)) break;
            memcpy(prefix, bytes, cut);
            prime_error(HANDOFF_E_MALFORMED_DATA);
            back = handoff_value_decode(prefix, cut);
            if (!CHECK(back == NULL)) CHECK_FAIL("truncation to %zu bytes decoded", cut);
            if (!CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_MALFORMED_DATA))
                CHECK_FAIL("truncation to %zu bytes", cut);
            handoff_value_free(back);
            free(prefix);
        }
        /* And the whole thing still decodes. */
        {
            handoff_value *back = handoff_value_decode(bytes, length);
            CHECK(back != NULL && handoff_value_equal(back, v));
            handoff_value_free(back);
        }
    }
    handoff_free(bytes);
    handoff_value_free(v);
}

static void test_decode_random_flips(void) {
    handoff_value *v = make_rich_dictionary();
    uint8_t *bytes;
    size_t length;
    int iteration, decoded = 0;
    encode_or_fail(v, &bytes, &length);
    if (bytes != NULL && CHECK(length > 0)) {
        uint8_t *mutated = (uint8_t *)malloc(length);
        if (CHECK(mutated != NULL)) {
            prng_state = 0x0123456789ABCDEFull;
            for (iteration = 0; iteration < 4000; iteration++) {
                int flips = 1 + (int)(prng_next() % 4), f;
                memcpy(mutated, bytes, length);
                for (f = 0; f < flips; f++) {
                    size_t at = (size_t)(prng_next() % length);
                    /* Bias towards the trailer and offset table, where the
                     * structural fields live. */
                    if (prng_next() % 3 == 0) at = length - 1 - (size_t)(prng_next() % (length < 64 ? length : 64));
                    if (prng_next() % 2) mutated[at] ^= (uint8_t)(1u << (prng_next() % 8));
                    else mutated[at] = (uint8_t)prng_next();
                }
                decoded += decode_must_be_safe(mutated, length, "flip", (size_t)iteration);
            }
        }
        free(mutated);
    }
    if (getenv("CHECK_VERBOSE")) printf("  random flips: %d of 4000 still decoded\n", decoded);
    handoff_free(bytes);
    handoff_value_free(v);
}

static void test_decode_random_garbage(void) {
    uint8_t buffer[512];
    int iteration;
    prng_state = 0xFEEDFACECAFEBEEFull;
    for (iteration = 0; iteration < 2000; iteration++) {
        size_t length = 8 + (size_t)(prng_next() % (sizeof buffer - 8)), k;
        memcpy(buffer, "bplist00", 8);
        for (k = 8; k < length; k++) buffer[k] = (uint8_t)prng_next();
        /* Sometimes a plausible trailer: sizes 1..2, small counts. */
        if (length >= 40 && iteration % 2 == 0) {
            uint8_t *t = buffer + length - 32;
            memset(t, 0, 32);
            t[6] = (uint8_t)(1 + prng_next() % 2);
            t[7] = (uint8_t)(1 + prng_next() % 2);
            t[15] = (uint8_t)(1 + prng_next() % 16);
            t[23] = (uint8_t)(prng_next() % 16);
            t[31] = (uint8_t)(8 + prng_next() % (length - 40 + 1));
        }
        (void)decode_must_be_safe(buffer, length, "garbage", (size_t)iteration);
    }
}

/* --- hand-made hostile binary property lists --- */

static void put_be(uint8_t *p, uint64_t v, int size) {
    int k;
    for (k = size - 1; k >= 0; k--) {
        p[k] = (uint8_t)(v & 0xFF);
        v >>= 8;
    }
}

/* Appends a trailer to buf (which holds `used` bytes, the offset table last,
 * starting at table_offset). Returns the total length. */
static size_t put_trailer(uint8_t *buf, size_t used, int offset_size, int ref_size,
                          uint64_t objects, uint64_t top, uint64_t table_offset) {
    uint8_t *t = buf + used;
    memset(t, 0, 32);
    t[6] = (uint8_t)offset_size;
    t[7] = (uint8_t)ref_size;
    put_be(t + 8, objects, 8);
    put_be(t + 16, top, 8);
    put_be(t + 24, table_offset, 8);
    return used + 32;
}

/* n objects: object i is a one-element array holding object i+1; the last
 * holds object `last_ref` when cycle, else is empty. */
static uint8_t *build_array_chain(size_t n, int cycle, size_t last_ref, size_t *length) {
    size_t size = 8 + 5 * n + 4 * n + 32, k, at = 8, table;
    uint8_t *buf = (uint8_t *)malloc(size);
    size_t *offsets = (size_t *)malloc(n * sizeof *offsets);
    if (buf == NULL || offsets == NULL) {
        free(buf);
        free(offsets);
        return NULL;
    }
    memcpy(buf, "bplist00", 8);
    for (k = 0; k < n; k++) {
        offsets[k] = at;
        if (k + 1 < n) {
            buf[at++] = 0xA1;
            put_be(buf + at, k + 1, 4);
            at += 4;
        } else if (cycle) {
            buf[at++] = 0xA1;
            put_be(buf + at, last_ref, 4);
            at += 4;
        } else {
            buf[at++] = 0xA0;
        }
    }
    table = at;
    for (k = 0; k < n; k++) {
        put_be(buf + at, offsets[k], 4);
        at += 4;
    }
    *length = put_trailer(buf, at, 4, 4, n, 0, table);
    free(offsets);
    return buf;
}

static void test_decode_hostile_structures(void) {
    uint8_t buf[128];
    size_t length;

    /* A self-containing array: object 0 = [object 0]. */
    {
        uint8_t *chain = build_array_chain(1, 1, 0, &length);
        if (CHECK(chain != NULL))
            CHECK_NULL_ERR(handoff_value_decode(chain, length), HANDOFF_E_MALFORMED_DATA);
        free(chain);
    }
    /* A longer cycle: 0 -> 1 -> ... -> 9 -> 3. */
    {
        uint8_t *chain = build_array_chain(10, 1, 3, &length);
        if (CHECK(chain != NULL))
            CHECK_NULL_ERR(handoff_value_decode(chain, length), HANDOFF_E_MALFORMED_DATA);
        free(chain);
    }
    /* A chain of 20 nested arrays (deeper than a userInfo may be) and one of
     * 200000 (would overflow a naive recursive decoder): no crash. */
    {
        uint8_t *chain = build_array_chain(20, 0, 0, &length);
        if (CHECK(chain != NULL)) (void)decode_must_be_safe(chain, length, "chain", 20);
        free(chain);
        chain = build_array_chain(200000, 0, 0, &length);
        if (CHECK(chain != NULL)) (void)decode_must_be_safe(chain, length, "chain", 200000);
        free(chain);
    }
    /* Sanity: the builder makes valid plists (a chain of 3 is fine). */
    {
        uint8_t *chain = build_array_chain(3, 0, 0, &length);
        handoff_value *v = chain ? handoff_value_decode(chain, length) : NULL;
        if (CHECK(v != NULL)) {
            CHECK_EQ_INT(handoff_value_get_kind(v), HANDOFF_VALUE_ARRAY);
            CHECK_EQ_INT(handoff_value_count(v), 1);
        }
        handoff_value_free(v);
        free(chain);
    }

    /* Objects claiming 2^63-1 elements / bytes. */
    {
        static const uint8_t markers[] = {0xAF, 0xDF, 0xCF, 0x5F, 0x6F, 0x4F};
        size_t k;
        for (k = 0; k < ARRAY_COUNT(markers); k++) {
            memcpy(buf, "bplist00", 8);
            buf[8] = markers[k];
            buf[9] = 0x13;
            put_be(buf + 10, 0x7FFFFFFFFFFFFFFFull, 8);
            buf[18] = 8; /* offset table: one 1-byte offset */
            length = put_trailer(buf, 19, 1, 1, 1, 0, 18);
            CHECK_NULL_ERR(handoff_value_decode(buf, length), HANDOFF_E_MALFORMED_DATA);
            /* And a length just past the end. */
            buf[9] = 0x10;
            buf[10] = 0x40;
            buf[11] = 8;
            length = put_trailer(buf, 12, 1, 1, 1, 0, 11);
            CHECK_NULL_ERR(handoff_value_decode(buf, length), HANDOFF_E_MALFORMED_DATA);
        }
    }

    /* A dictionary with an integer key: not a userInfo dictionary. */
    memcpy(buf, "bplist00", 8);
    buf[8] = 0xD1;  /* dict, 1 entry */
    buf[9] = 1;     /* key ref */
    buf[10] = 2;    /* value ref */
    buf[11] = 0x10; /* int 5 */
    buf[12] = 5;
    buf[13] = 0x10; /* int 6 */
    buf[14] = 6;
    buf[15] = 8;
    buf[16] = 11;
    buf[17] = 13;
    length = put_trailer(buf, 18, 1, 1, 3, 0, 15);
    CHECK_NULL_ERR(handoff_value_decode(buf, length), HANDOFF_E_MALFORMED_DATA);
    /* The same with a string key decodes (the builder is right). */
    buf[11] = 0x51; /* ASCII string "k" */
    buf[12] = 'k';
    {
        handoff_value *v = handoff_value_decode(buf, length);
        if (CHECK(v != NULL)) {
            const handoff_value *item = handoff_value_dictionary_get(v, "k");
            if (CHECK(item != NULL)) CHECK_EQ_INT(read_integer(item), 6);
        }
        handoff_value_free(v);
    }

    /* Broken trailers of a valid one-integer plist. */
    {
        /* strict: also refused by Apple's CoreFoundation and Python's
         * plistlib; the others only need to be handled safely. */
        static const struct {
            int offset_size, ref_size;
            uint64_t objects, top, table;
            int strict;
        } bad[] = {
            {0, 1, 1, 0, 10, 1},                       /* offset size 0 */
            {1, 0, 1, 0, 10, 0},                       /* ref size 0 (CF refuses) */
            {9, 1, 1, 0, 10, 1},                       /* offset size 9 */
            {255, 255, 1, 0, 10, 1},                   /* sizes 255 */
            {1, 1, 0, 0, 10, 1},                       /* no objects */
            {1, 1, 1, 1, 10, 1},                       /* top out of range */
            {1, 1, 1, UINT64_MAX, 10, 1},              /* top huge */
            {1, 1, UINT64_MAX, 0, 10, 1},              /* object count huge */
            {1, 1, 0x2000000000000000ull, 0, 10, 1},   /* count * size overflows */
            {1, 1, 1, 0, 11, 0},                       /* table in the trailer: object at 0 */
            {1, 1, 1, 0, 3, 1},                        /* table in the header */
            {1, 1, 1, 0, UINT64_MAX, 1},               /* table far away */
            {8, 1, 1, 0, 10, 1},                       /* table runs into trailer */
        };
        size_t k;
        for (k = 0; k < ARRAY_COUNT(bad); k++) {
            memcpy(buf, "bplist00", 8);
            buf[8] = 0x10; /* int 42 */
            buf[9] = 42;
            buf[10] = 8;
            length = put_trailer(buf, 11, bad[k].offset_size, bad[k].ref_size, bad[k].objects,
                                 bad[k].top, bad[k].table);
            if (!bad[k].strict) {
                (void)decode_must_be_safe(buf, length, "odd trailer", k);
                continue;
            }
            prime_error(HANDOFF_E_MALFORMED_DATA);
            {
                handoff_value *v = handoff_value_decode(buf, length);
                if (!CHECK(v == NULL)) CHECK_FAIL("bad trailer %zu decoded", k);
                if (!CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_MALFORMED_DATA))
                    CHECK_FAIL("bad trailer %zu", k);
                handoff_value_free(v);
            }
        }
        /* The unbroken one decodes to 42. */
        length = put_trailer(buf, 11, 1, 1, 1, 0, 10);
        {
            handoff_value *v = handoff_value_decode(buf, length);
            if (CHECK(v != NULL)) CHECK_EQ_INT(read_integer(v), 42);
            handoff_value_free(v);
        }
        /* An object offset pointing into the trailer / past the end. */
        buf[10] = 200;
        length = put_trailer(buf, 11, 1, 1, 1, 0, 10);
        CHECK_NULL_ERR(handoff_value_decode(buf, length), HANDOFF_E_MALFORMED_DATA);
        buf[10] = 12; /* inside the trailer */
        length = put_trailer(buf, 11, 1, 1, 1, 0, 10);
        (void)decode_must_be_safe(buf, length, "offset into trailer", 0);
    }
}

/* ------------------------------------------------------------------------ */
/* Activities                                                               */
/* ------------------------------------------------------------------------ */

static void test_activity_new(void) {
    static const char *const valid[] = {
        "com.example.app.edit", "a.b", "com.my-app_x.edit-document", "A1.B2", "0.0",
        "com.example.a.very.long.type.with.many.labels",
        /* What apps declare in NSUserActivityTypes besides reverse-DNS types
         * (docs/PROTOCOL.md section 3): intent class names, short names. */
        "INSendMessageIntent", "ReadArticle", "nodots", "com..example", "not reverse dns",
        "com.ex\xc3\xa4mple", "com.example/edit", ".",
    };
    static const char *const invalid[] = {
        "", "com.example.edit\n", "tab\there", "del\x7f", "com.example.\xff",
    };
    char long_type[300];
    size_t k;
    for (k = 0; k < ARRAY_COUNT(valid); k++) {
        handoff_activity *a = handoff_activity_new(valid[k]);
        if (!CHECK(a != NULL)) {
            CHECK_FAIL("type \"%s\" refused: %s", valid[k], handoff_last_error_message());
            continue;
        }
        CHECK_EQ_STR(handoff_activity_get_type(a), valid[k]);
        handoff_activity_free(a);
    }
    for (k = 0; k < ARRAY_COUNT(invalid); k++) {
        handoff_activity *a;
        prime_error(HANDOFF_E_INVALID_VALUE);
        a = handoff_activity_new(invalid[k]);
        if (!CHECK(a == NULL)) CHECK_FAIL("type \"%s\" accepted", invalid[k]);
        if (!CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_INVALID_VALUE))
            CHECK_FAIL("type \"%s\"", invalid[k]);
        handoff_activity_free(a);
    }
    CHECK_NULL_ERR(handoff_activity_new(NULL), HANDOFF_E_INVALID_ARGUMENT);

    /* At most 255 bytes. */
    memset(long_type, 'a', sizeof long_type);
    long_type[3] = '.';
    long_type[255] = '\0';
    {
        handoff_activity *a = handoff_activity_new(long_type);
        if (CHECK(a != NULL)) CHECK_EQ_INT(strlen(handoff_activity_get_type(a)), 255);
        handoff_activity_free(a);
    }
    long_type[255] = 'a';
    long_type[256] = '\0';
    CHECK_NULL_ERR(handoff_activity_new(long_type), HANDOFF_E_INVALID_VALUE);
}

static int is_upper_uuid(const char *s) {
    size_t k;
    if (s == NULL || strlen(s) != 36) return 0;
    for (k = 0; k < 36; k++) {
        char c = s[k];
        if (k == 8 || k == 13 || k == 18 || k == 23) {
            if (c != '-') return 0;
        } else if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'))) {
            return 0;
        }
    }
    return 1;
}

static void test_activity_ids(void) {
    handoff_activity *a = handoff_activity_new("com.example.app.edit");
    handoff_activity *b = handoff_activity_new("com.example.app.edit");
    const char *ida, *idb;
    if (!CHECK(a != NULL && b != NULL)) {
        handoff_activity_free(a);
        handoff_activity_free(b);
        return;
    }
    ida = handoff_activity_get_id(a);
    idb = handoff_activity_get_id(b);
    CHECK(ida != NULL && idb != NULL);
    if (!CHECK(is_upper_uuid(ida))) CHECK_FAIL("id \"%s\"", ida ? ida : "(null)");
    CHECK(is_upper_uuid(idb));
    CHECK(ida != NULL && idb != NULL && strcmp(ida, idb) != 0);
    /* Stable for the activity's life, and unaffected by changes. */
    CHECK_OK(handoff_activity_set_title(a, "t"));
    CHECK_EQ_STR(handoff_activity_get_id(a), ida);
    CHECK_EQ_STR(handoff_activity_get_type(a), "com.example.app.edit");
    handoff_activity_free(a);
    handoff_activity_free(b);
}

typedef int (*string_setter)(handoff_activity *, const char *);
typedef const char *(*string_getter)(const handoff_activity *);

static void check_string_property(handoff_activity *a, string_setter set, string_getter get,
                                  const char *name, const char *v1, const char *v2) {
    const char *got;
    CHECK_NULL_ERR(get(a), HANDOFF_E_NOT_FOUND);
    if (!CHECK_EQ_INT(set(a, v1), HANDOFF_OK)) CHECK_FAIL("%s: %s", name, handoff_last_error_message());
    if (!CHECK_EQ_STR(get(a), v1)) CHECK_FAIL("%s", name);
    CHECK_OK(set(a, v2));
    if (!CHECK_EQ_STR(get(a), v2)) CHECK_FAIL("%s", name);
    got = get(a);
    CHECK(got == get(a) || (got != NULL && strcmp(got, get(a)) == 0));
    CHECK_OK(set(a, NULL)); /* NULL clears */
    CHECK_NULL_ERR(get(a), HANDOFF_E_NOT_FOUND);
    CHECK_OK(set(a, NULL)); /* clearing an unset property is fine */
    CHECK_OK(set(a, v1));
    CHECK_STATUS(set(NULL, v1), HANDOFF_E_INVALID_ARGUMENT);
    CHECK(get(NULL) == NULL);
    if (!CHECK_EQ_STR(get(a), v1)) CHECK_FAIL("%s", name);
}

static void test_activity_string_properties(void) {
    handoff_activity *a = handoff_activity_new("com.example.app.edit");
    if (!CHECK(a != NULL)) return;
    check_string_property(a, handoff_activity_set_title, handoff_activity_get_title, "title",
                          "Editing \xe2\x80\x9cReport\xe2\x80\x9d \xf0\x9f\x93\x84", "Second title");
    check_string_property(a, handoff_activity_set_webpage_url, handoff_activity_get_webpage_url,
                          "webpage_url", "https://example.com/doc/42?x=1", "http://example.org/");
    check_string_property(a, handoff_activity_set_referrer_url, handoff_activity_get_referrer_url,
                          "referrer_url", "https://referrer.example/page", "http://r.example/");
    check_string_property(a, handoff_activity_set_target_content_identifier,
                          handoff_activity_get_target_content_identifier,
                          "target_content_identifier", "document-42", "window/\xc3\xa9/7");
    check_string_property(a, handoff_activity_set_persistent_identifier,
                          handoff_activity_get_persistent_identifier, "persistent_identifier",
                          "persist-1", "");

    /* Invalid UTF-8 is refused and changes nothing. */
    CHECK_STATUS(handoff_activity_set_title(a, "bad \xff title"), HANDOFF_E_INVALID_VALUE);
    CHECK_EQ_STR(handoff_activity_get_title(a), "Editing \xe2\x80\x9cReport\xe2\x80\x9d \xf0\x9f\x93\x84");
    CHECK_STATUS(handoff_activity_set_persistent_identifier(a, "\xc0\xaf"), HANDOFF_E_INVALID_VALUE);
    CHECK_EQ_STR(handoff_activity_get_persistent_identifier(a), "persist-1");

    /* Web page URLs: http(s) only; a refused one leaves the old value. */
    CHECK_STATUS(handoff_activity_set_webpage_url(a, "ftp://x"), HANDOFF_E_INVALID_VALUE);
    CHECK_EQ_STR(handoff_activity_get_webpage_url(a), "https://example.com/doc/42?x=1");
    CHECK_STATUS(handoff_activity_set_webpage_url(a, "mailto:a@b"), HANDOFF_E_INVALID_VALUE);
    CHECK_EQ_STR(handoff_activity_get_webpage_url(a), "https://example.com/doc/42?x=1");
    CHECK_STATUS(handoff_activity_set_webpage_url(a, "no scheme"), HANDOFF_E_INVALID_VALUE);
    CHECK_STATUS(handoff_activity_set_webpage_url(a, "file:///etc/passwd"), HANDOFF_E_INVALID_VALUE);
    CHECK_STATUS(handoff_activity_set_webpage_url(a, "javascript:alert(1)"), HANDOFF_E_INVALID_VALUE);
    CHECK_EQ_STR(handoff_activity_get_webpage_url(a), "https://example.com/doc/42?x=1");
    CHECK_OK(handoff_activity_set_webpage_url(a, "HTTPS://EXAMPLE.COM/upper"));
    CHECK(handoff_activity_get_webpage_url(a) != NULL);
    CHECK_STATUS(handoff_activity_set_referrer_url(a, "ftp://x"), HANDOFF_E_INVALID_VALUE);
    CHECK_STATUS(handoff_activity_set_referrer_url(a, "mailto:a@b"), HANDOFF_E_INVALID_VALUE);
    CHECK_EQ_STR(handoff_activity_get_referrer_url(a), "https://referrer.example/page");

    handoff_activity_free(a);
}

static void test_activity_expiration(void) {
    handoff_activity *a = handoff_activity_new("com.example.app.edit");
    double when = -1.0;
    if (!CHECK(a != NULL)) return;
    CHECK_STATUS(handoff_activity_get_expiration_date(a, &when), HANDOFF_E_NOT_FOUND);
    CHECK(when == -1.0);
    CHECK_OK(handoff_activity_set_expiration_date(a, 1800000000.25));
    CHECK_OK(handoff_activity_get_expiration_date(a, &when));
    CHECK(fabs(when - 1800000000.25) < 1e-6);
    CHECK_OK(handoff_activity_set_expiration_date(a, 0.0));
    CHECK_OK(handoff_activity_get_expiration_date(a, &when));
    CHECK(when == 0.0);
    CHECK_OK(handoff_activity_set_expiration_date(a, 1800000000.0));
    CHECK_STATUS(handoff_activity_set_expiration_date(a, INFINITY), HANDOFF_E_INVALID_VALUE);
    CHECK_STATUS(handoff_activity_set_expiration_date(a, -INFINITY), HANDOFF_E_INVALID_VALUE);
    CHECK_STATUS(handoff_activity_set_expiration_date(a, NAN), HANDOFF_E_INVALID_VALUE);
    CHECK_OK(handoff_activity_get_expiration_date(a, &when));
    CHECK(when == 1800000000.0); /* unchanged by the refused sets */
    CHECK_OK(handoff_activity_clear_expiration_date(a));
    when = -1.0;
    CHECK_STATUS(handoff_activity_get_expiration_date(a, &when), HANDOFF_E_NOT_FOUND);
    CHECK(when == -1.0);
    CHECK_OK(handoff_activity_clear_expiration_date(a)); /* clearing twice is fine */

    CHECK_STATUS(handoff_activity_set_expiration_date(NULL, 1.0), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_activity_clear_expiration_date(NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_activity_get_expiration_date(NULL, &when), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_activity_get_expiration_date(a, NULL), HANDOFF_E_INVALID_ARGUMENT);
    handoff_activity_free(a);
}

static void test_activity_flags(void) {
    static const struct {
        handoff_activity_flag flag;
        int default_value;
        const char *name;
    } flags[] = {
        {HANDOFF_ACTIVITY_ELIGIBLE_FOR_HANDOFF, 1, "eligible_for_handoff"},
        {HANDOFF_ACTIVITY_ELIGIBLE_FOR_SEARCH, 0, "eligible_for_search"},
        {HANDOFF_ACTIVITY_ELIGIBLE_FOR_PUBLIC_INDEXING, 0, "eligible_for_public_indexing"},
        {HANDOFF_ACTIVITY_ELIGIBLE_FOR_PREDICTION, 0, "eligible_for_prediction"},
        {HANDOFF_ACTIVITY_NEEDS_SAVE, 0, "needs_save"},
        {HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS, 0, "supports_continuation_streams"},
    };
    handoff_activity *a = handoff_activity_new("com.example.app.edit");
    size_t k, j;
    int value;
    if (!CHECK(a != NULL)) return;
    for (k = 0; k < ARRAY_COUNT(flags); k++) {
        value = -5;
        CHECK_OK(handoff_activity_get_flag(a, flags[k].flag, &value));
        if (!CHECK_EQ_INT(value, flags[k].default_value)) CHECK_FAIL("default of %s", flags[k].name);
    }
    for (k = 0; k < ARRAY_COUNT(flags); k++) {
        int target = !flags[k].default_value;
        CHECK_OK(handoff_activity_set_flag(a, flags[k].flag, target ? 7 : 0)); /* non-zero sets */
        value = -5;
        CHECK_OK(handoff_activity_get_flag(a, flags[k].flag, &value));
        if (!CHECK_EQ_INT(value, target)) CHECK_FAIL("%s after set", flags[k].name);
        /* Only that flag changed. */
        for (j = 0; j < ARRAY_COUNT(flags); j++) {
            int expected = j <= k ? !flags[j].default_value : flags[j].default_value;
            value = -5;
            CHECK_OK(handoff_activity_get_flag(a, flags[j].flag, &value));
            if (!CHECK_EQ_INT(value, expected)) CHECK_FAIL("%s after setting %s", flags[j].name, flags[k].name);
        }
    }
    for (k = 0; k < ARRAY_COUNT(flags); k++) {
        CHECK_OK(handoff_activity_set_flag(a, flags[k].flag, 1));
        CHECK_OK(handoff_activity_get_flag(a, flags[k].flag, &value));
        CHECK_EQ_INT(value, 1);
        CHECK_OK(handoff_activity_set_flag(a, flags[k].flag, 0));
        CHECK_OK(handoff_activity_get_flag(a, flags[k].flag, &value));
        CHECK_EQ_INT(value, 0);
    }

    /* Unknown flags, NULL arguments. */
    value = 33;
    CHECK_STATUS(handoff_activity_set_flag(a, (handoff_activity_flag)6, 1), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_activity_set_flag(a, (handoff_activity_flag)-1, 1), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_activity_set_flag(a, (handoff_activity_flag)1000, 0), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_activity_get_flag(a, (handoff_activity_flag)6, &value), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_activity_get_flag(a, (handoff_activity_flag)-1, &value), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_EQ_INT(value, 33);
    CHECK_STATUS(handoff_activity_get_flag(a, HANDOFF_ACTIVITY_NEEDS_SAVE, NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_activity_get_flag(NULL, HANDOFF_ACTIVITY_NEEDS_SAVE, &value), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_activity_set_flag(NULL, HANDOFF_ACTIVITY_NEEDS_SAVE, 1), HANDOFF_E_INVALID_ARGUMENT);
    handoff_activity_free(a);
}

typedef int (*strings_setter)(handoff_activity *, const char *const *, size_t);
typedef size_t (*strings_counter)(const handoff_activity *);
typedef const char *(*strings_at)(const handoff_activity *, size_t);

static void check_string_set(handoff_activity *a, strings_setter set, strings_counter count,
                             strings_at at, const char *name) {
    static const char *const input[] = {"zeta", "alpha", "Beta", "alpha", "\xc3\xa9moji", "_x", "zeta"};
    static const char *const sorted[] = {"Beta", "_x", "alpha", "zeta", "\xc3\xa9moji"};
    static const char *const replacement[] = {"only", "two"};
    static const char *const with_null[] = {"ok", NULL};
    static const char *const invalid[] = {"fine", "bad\xff"};
    size_t k;

    CHECK_EQ_INT(count(a), 0);
    CHECK(at(a, 0) == NULL);
    if (!CHECK_EQ_INT(set(a, input, ARRAY_COUNT(input)), HANDOFF_OK)) CHECK_FAIL("%s", name);
    if (!CHECK_EQ_INT(count(a), ARRAY_COUNT(sorted))) CHECK_FAIL("%s count", name);
    for (k = 0; k < ARRAY_COUNT(sorted); k++) {
        if (!CHECK_EQ_STR(at(a, k), sorted[k])) CHECK_FAIL("%s at %zu", name, k);
    }
    CHECK(at(a, ARRAY_COUNT(sorted)) == NULL);
    CHECK(at(a, (size_t)-1) == NULL);

    /* Replace the whole set. */
    CHECK_OK(set(a, replacement, 2));
    CHECK_EQ_INT(count(a), 2);
    CHECK_EQ_STR(at(a, 0), "only");
    CHECK_EQ_STR(at(a, 1), "two");
    CHECK(at(a, 2) == NULL);

    /* Refused input changes nothing. */
    CHECK_STATUS(set(a, NULL, 3), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(set(a, with_null, 2), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(set(a, invalid, 2), HANDOFF_E_INVALID_VALUE);
    CHECK_STATUS(set(NULL, replacement, 2), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_EQ_INT(count(a), 2);
    CHECK_EQ_STR(at(a, 0), "only");

    /* Empty it: NULL with count 0, and an array with count 0. */
    CHECK_OK(set(a, NULL, 0));
    CHECK_EQ_INT(count(a), 0);
    CHECK(at(a, 0) == NULL);
    CHECK_OK(set(a, replacement, 1));
    CHECK_EQ_INT(count(a), 1);
    CHECK_OK(set(a, replacement, 0));
    CHECK_EQ_INT(count(a), 0);
    CHECK_EQ_INT(count(NULL), 0);
    CHECK(at(NULL, 0) == NULL);
}

static void test_activity_keywords_and_required_keys(void) {
    handoff_activity *a = handoff_activity_new("com.example.app.edit");
    if (!CHECK(a != NULL)) return;
    check_string_set(a, handoff_activity_set_keywords, handoff_activity_keyword_count,
                     handoff_activity_keyword_at, "keywords");
    check_string_set(a, handoff_activity_set_required_user_info_keys,
                     handoff_activity_required_user_info_key_count,
                     handoff_activity_required_user_info_key_at, "required keys");
    check_string_set(a, handoff_activity_set_searchable_user_info_keys,
                     handoff_activity_searchable_user_info_key_count,
                     handoff_activity_searchable_user_info_key_at, "searchable keys");
    /* The two sets are independent. */
    {
        static const char *const kw[] = {"k1"};
        static const char *const rk[] = {"r1", "r2"};
        CHECK_OK(handoff_activity_set_keywords(a, kw, 1));
        CHECK_OK(handoff_activity_set_required_user_info_keys(a, rk, 2));
        CHECK_EQ_INT(handoff_activity_keyword_count(a), 1);
        CHECK_EQ_INT(handoff_activity_required_user_info_key_count(a), 2);
        CHECK_EQ_STR(handoff_activity_keyword_at(a, 0), "k1");
        CHECK_EQ_STR(handoff_activity_required_user_info_key_at(a, 1), "r2");
    }
    handoff_activity_free(a);
}

static void test_activity_user_info(void) {
    handoff_activity *a = handoff_activity_new("com.example.app.edit");
    handoff_value *info, *copy, *merge, *got;
    const handoff_value *item;
    if (!CHECK(a != NULL)) return;

    /* Initially empty. */
    copy = handoff_activity_copy_user_info(a);
    if (CHECK(copy != NULL)) {
        CHECK_EQ_INT(handoff_value_get_kind(copy), HANDOFF_VALUE_DICTIONARY);
        CHECK_EQ_INT(handoff_value_count(copy), 0);
    }
    handoff_value_free(copy);

    info = handoff_value_new_dictionary();
    dict_put(info, "a", int_value(1));
    dict_put(info, "b", str_value("x"));
    dict_put(info, "keep", handoff_value_new_url("https://example.com/k"));
    CHECK_OK(handoff_activity_set_user_info(a, info));

    /* The activity holds a copy: changing ours changes nothing. */
    dict_put(info, "a", int_value(999));
    got = handoff_activity_copy_user_info(a);
    if (CHECK(got != NULL)) {
        CHECK_EQ_INT(handoff_value_count(got), 3);
        item = handoff_value_dictionary_get(got, "a");
        if (CHECK(item != NULL)) CHECK_EQ_INT(read_integer(item), 1);
        /* And changing the returned copy changes nothing either. */
        dict_put(got, "b", str_value("changed"));
    }
    handoff_value_free(got);
    got = handoff_activity_copy_user_info(a);
    if (CHECK(got != NULL)) {
        item = handoff_value_dictionary_get(got, "b");
        if (CHECK(item != NULL)) CHECK_EQ_STR(handoff_value_get_string(item, NULL), "x");
    }
    handoff_value_free(got);

    /* Merge: existing key replaced, others kept, new ones added. */
    merge = handoff_value_new_dictionary();
    dict_put(merge, "b", str_value("y"));
    dict_put(merge, "c", handoff_value_new_boolean(1));
    CHECK_OK(handoff_activity_add_user_info_entries(a, merge));
    got = handoff_activity_copy_user_info(a);
    if (CHECK(got != NULL)) {
        int b = 0;
        CHECK_EQ_INT(handoff_value_count(got), 4);
        item = handoff_value_dictionary_get(got, "a");
        if (CHECK(item != NULL)) CHECK_EQ_INT(read_integer(item), 1);
        item = handoff_value_dictionary_get(got, "b");
        if (CHECK(item != NULL)) CHECK_EQ_STR(handoff_value_get_string(item, NULL), "y");
        item = handoff_value_dictionary_get(got, "c");
        if (CHECK(item != NULL)) {
            CHECK_OK(handoff_value_get_boolean(item, &b));
            CHECK_EQ_INT(b, 1);
        }
        item = handoff_value_dictionary_get(got, "keep");
        if (CHECK(item != NULL)) CHECK_EQ_STR(handoff_value_get_url(item), "https://example.com/k");
    }

    /* Size: the encoded userInfo. */
    {
        uint8_t *bytes = NULL;
        size_t length = 0;
        size_t size = handoff_activity_user_info_size(a);
        CHECK(size > 8);
        if (got != NULL && CHECK_EQ_INT(handoff_value_encode(got, &bytes, &length), HANDOFF_OK))
            CHECK_EQ_INT(size, length);
        handoff_free(bytes);
        CHECK_EQ_INT(handoff_activity_user_info_size(NULL), 0);
    }

    /* Non-dictionaries are refused; nothing changes. */
    {
        handoff_value *not_dict = int_value(5);
        handoff_value *array = handoff_value_new_array();
        handoff_value *after;
        CHECK_STATUS(handoff_activity_set_user_info(a, not_dict), HANDOFF_E_TYPE_MISMATCH);
        CHECK_STATUS(handoff_activity_set_user_info(a, array), HANDOFF_E_TYPE_MISMATCH);
        CHECK_STATUS(handoff_activity_add_user_info_entries(a, not_dict), HANDOFF_E_TYPE_MISMATCH);
        CHECK_STATUS(handoff_activity_add_user_info_entries(a, array), HANDOFF_E_TYPE_MISMATCH);
        after = handoff_activity_copy_user_info(a);
        CHECK(after != NULL && got != NULL && handoff_value_equal(after, got));
        handoff_value_free(after);
        handoff_value_free(not_dict);
        handoff_value_free(array);
    }

    /* A dictionary breaking a userInfo rule (too deep): refused, unchanged. */
    {
        handoff_value *deep = handoff_value_new_dictionary();
        handoff_value *chain = make_nested_arrays(20);
        handoff_value *after;
        dict_put(deep, "deep", chain);
        CHECK_STATUS(handoff_activity_set_user_info(a, deep), HANDOFF_E_INVALID_VALUE);
        CHECK_STATUS(handoff_activity_add_user_info_entries(a, deep), HANDOFF_E_INVALID_VALUE);
        after = handoff_activity_copy_user_info(a);
        CHECK(after != NULL && got != NULL && handoff_value_equal(after, got));
        handoff_value_free(after);
        handoff_value_free(deep);
    }

    /* A value the library made (decoded, or copied out of an activity) is
     * known to keep the rules and is not walked again when set; once it is
     * changed, it is. Each of the three sources, changed into a breaker. */
    {
        static const char empty_json[] = "{}";
        handoff_value *sources[3];
        uint8_t *bytes = NULL;
        size_t length = 0;
        handoff_value *empty = handoff_value_new_dictionary();
        CHECK_OK(handoff_value_encode(empty, &bytes, &length));
        sources[0] = handoff_value_decode_json(empty_json, 2);
        sources[1] = handoff_value_decode(bytes, length);
        sources[2] = handoff_activity_copy_user_info(a);
        for (int i = 0; i < 3; i++) {
            handoff_value *after;
            if (!CHECK(sources[i] != NULL)) continue;
            dict_put(sources[i], "deep", make_nested_arrays(20));
            CHECK_STATUS(handoff_activity_set_user_info(a, sources[i]), HANDOFF_E_INVALID_VALUE);
            CHECK_STATUS(handoff_activity_add_user_info_entries(a, sources[i]), HANDOFF_E_INVALID_VALUE);
            after = handoff_activity_copy_user_info(a);
            CHECK(after != NULL && got != NULL && handoff_value_equal(after, got));
            handoff_value_free(after);
            handoff_value_free(sources[i]);
        }
        handoff_free(bytes);
        handoff_value_free(empty);
    }

    CHECK_STATUS(handoff_activity_set_user_info(NULL, info), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_activity_add_user_info_entries(NULL, info), HANDOFF_E_INVALID_ARGUMENT);
    CHECK(handoff_activity_copy_user_info(NULL) == NULL);

    /* NULL empties it. */
    CHECK_OK(handoff_activity_set_user_info(a, NULL));
    copy = handoff_activity_copy_user_info(a);
    if (CHECK(copy != NULL)) {
        CHECK_EQ_INT(handoff_value_get_kind(copy), HANDOFF_VALUE_DICTIONARY);
        CHECK_EQ_INT(handoff_value_count(copy), 0);
    }
    handoff_value_free(copy);

    handoff_value_free(got);
    handoff_value_free(info);
    handoff_value_free(merge);
    handoff_activity_free(a);
}

static void test_activity_missing_required_key(void) {
    static const char *const required[] = {"page", "document"};
    handoff_activity *a = handoff_activity_new("com.example.app.edit");
    handoff_value *info = handoff_value_new_dictionary();
    uint8_t *bytes = (uint8_t *)"untouched";
    uint8_t *const sentinel = bytes;
    size_t length = 4242;
    if (!CHECK(a != NULL)) return;
    CHECK_OK(handoff_activity_set_required_user_info_keys(a, required, 2));
    dict_put(info, "document", str_value("doc-1"));
    CHECK_OK(handoff_activity_set_user_info(a, info));
    CHECK_STATUS(handoff_activity_encode(a, &bytes, &length), HANDOFF_E_MISSING_REQUIRED_KEY);
    CHECK(bytes == sentinel);
    CHECK(strstr(handoff_last_error_message(), "page") != NULL);
    dict_put(info, "page", int_value(3));
    CHECK_OK(handoff_activity_set_user_info(a, info));
    CHECK_OK(handoff_activity_encode(a, &bytes, &length));
    CHECK(bytes != sentinel && starts_with_bplist(bytes, length));
    if (bytes != sentinel) handoff_free(bytes);

    /* Bad arguments. */
    CHECK_STATUS(handoff_activity_encode(NULL, &bytes, &length), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_activity_encode(a, NULL, &length), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_activity_encode(a, &bytes, NULL), HANDOFF_E_INVALID_ARGUMENT);
    handoff_value_free(info);
    handoff_activity_free(a);
}

static void test_activity_user_info_too_large(void) {
    handoff_activity *a = handoff_activity_new("com.example.app.edit");
    handoff_value *info = handoff_value_new_dictionary();
    unsigned char *blob = (unsigned char *)calloc(1, 4000);
    uint8_t *bytes = NULL;
    size_t length = 0, n;
    int status, hit_exact = 0;
    if (!CHECK(a != NULL && blob != NULL)) {
        handoff_activity_free(a);
        handoff_value_free(info);
        free(blob);
        return;
    }
    dict_put(info, "blob", handoff_value_new_data(blob, 4000));
    /* Setting is fine: the budget applies when the activity is sent. */
    CHECK_OK(handoff_activity_set_user_info(a, info));
    CHECK(handoff_activity_user_info_size(a) > HANDOFF_USER_INFO_BUDGET);
    status = handoff_activity_encode(a, &bytes, &length);
    CHECK_EQ_INT(status, HANDOFF_E_USER_INFO_TOO_LARGE);
    CHECK_EQ_INT(status, 4611);
    CHECK_EQ_INT(handoff_last_error_code(), 4611);
    CHECK(status >= HANDOFF_USER_ACTIVITY_ERROR_MINIMUM && status <= HANDOFF_USER_ACTIVITY_ERROR_MAXIMUM);
    CHECK(bytes == NULL);
    if (status == HANDOFF_OK) handoff_free(bytes);

    /* The boundary: exactly 3072 bytes encodes, 3073 does not. */
    for (n = 2900; n < 3100; n++) {
        size_t size;
        dict_put(info, "blob", handoff_value_new_data(blob, n));
        CHECK_OK(handoff_activity_set_user_info(a, info));
        size = handoff_activity_user_info_size(a);
        bytes = NULL;
        if (size == HANDOFF_USER_INFO_BUDGET) {
            hit_exact = 1;
            CHECK_OK(handoff_activity_encode(a, &bytes, &length));
            handoff_free(bytes);
        } else if (size == HANDOFF_USER_INFO_BUDGET + 1) {
            CHECK_STATUS(handoff_activity_encode(a, &bytes, &length), HANDOFF_E_USER_INFO_TOO_LARGE);
        } else if (size > HANDOFF_USER_INFO_BUDGET + 1) {
            CHECK_STATUS(handoff_activity_encode(a, &bytes, &length), HANDOFF_E_USER_INFO_TOO_LARGE);
            break;
        }
    }
    CHECK(hit_exact);
    handoff_value_free(info);
    handoff_activity_free(a);
    free(blob);
}

static void check_same_strings(const char *a, const char *b, const char *what) {
    if (!CHECK_EQ_STR(a, b)) CHECK_FAIL("%s differs after round trip", what);
}

static void check_activities_equal(const handoff_activity *x, const handoff_activity *y, int check_needs_save) {
    static const handoff_activity_flag flags[] = {
        HANDOFF_ACTIVITY_ELIGIBLE_FOR_HANDOFF, HANDOFF_ACTIVITY_ELIGIBLE_FOR_SEARCH,
        HANDOFF_ACTIVITY_ELIGIBLE_FOR_PUBLIC_INDEXING, HANDOFF_ACTIVITY_ELIGIBLE_FOR_PREDICTION,
        HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS, HANDOFF_ACTIVITY_NEEDS_SAVE,
    };
    size_t k;
    double dx = 0, dy = 0;
    int sx, sy;
    handoff_value *ux, *uy;
    check_same_strings(handoff_activity_get_type(x), handoff_activity_get_type(y), "type");
    check_same_strings(handoff_activity_get_id(x), handoff_activity_get_id(y), "activity id");
    check_same_strings(handoff_activity_get_title(x), handoff_activity_get_title(y), "title");
    check_same_strings(handoff_activity_get_webpage_url(x), handoff_activity_get_webpage_url(y), "webpage_url");
    check_same_strings(handoff_activity_get_referrer_url(x), handoff_activity_get_referrer_url(y), "referrer_url");
    check_same_strings(handoff_activity_get_target_content_identifier(x),
                       handoff_activity_get_target_content_identifier(y), "target_content_identifier");
    check_same_strings(handoff_activity_get_persistent_identifier(x),
                       handoff_activity_get_persistent_identifier(y), "persistent_identifier");
    sx = handoff_activity_get_expiration_date(x, &dx);
    sy = handoff_activity_get_expiration_date(y, &dy);
    CHECK_EQ_INT(sx, sy);
    if (sx == HANDOFF_OK && sy == HANDOFF_OK && !CHECK(fabs(dx - dy) < 1e-3))
        CHECK_FAIL("expiration %.3f vs %.3f", dx, dy);
    for (k = 0; k < ARRAY_COUNT(flags); k++) {
        int fx = -1, fy = -2;
        if (flags[k] == HANDOFF_ACTIVITY_NEEDS_SAVE && !check_needs_save) continue;
        CHECK_OK(handoff_activity_get_flag(x, flags[k], &fx));
        CHECK_OK(handoff_activity_get_flag(y, flags[k], &fy));
        if (!CHECK_EQ_INT(fx, fy)) CHECK_FAIL("flag %d differs after round trip", (int)flags[k]);
    }
    CHECK_EQ_INT(handoff_activity_keyword_count(x), handoff_activity_keyword_count(y));
    for (k = 0; k < handoff_activity_keyword_count(x); k++)
        check_same_strings(handoff_activity_keyword_at(x, k), handoff_activity_keyword_at(y, k), "keyword");
    CHECK_EQ_INT(handoff_activity_required_user_info_key_count(x),
                 handoff_activity_required_user_info_key_count(y));
    for (k = 0; k < handoff_activity_required_user_info_key_count(x); k++)
        check_same_strings(handoff_activity_required_user_info_key_at(x, k),
                           handoff_activity_required_user_info_key_at(y, k), "required key");
    ux = handoff_activity_copy_user_info(x);
    uy = handoff_activity_copy_user_info(y);
    if (!CHECK(ux != NULL && uy != NULL && handoff_value_equal(ux, uy))) CHECK_FAIL("userInfo differs");
    handoff_value_free(ux);
    handoff_value_free(uy);
}

static handoff_activity *encode_decode_activity(const handoff_activity *a) {
    uint8_t *bytes = NULL;
    size_t length = 0;
    handoff_activity *back = NULL;
    if (!CHECK_EQ_INT(handoff_activity_encode(a, &bytes, &length), HANDOFF_OK)) {
        CHECK_FAIL("encode: %s", handoff_last_error_message());
        return NULL;
    }
    CHECK(starts_with_bplist(bytes, length));
    back = handoff_activity_decode(bytes, length);
    if (!CHECK(back != NULL)) CHECK_FAIL("decode: %s", handoff_last_error_message());
    handoff_free(bytes);
    return back;
}

static void test_activity_round_trip(void) {
    static const char *const keywords[] = {"report", "q3", "\xc3\xa9t\xc3\xa9"};
    static const char *const required[] = {"doc", "page"};
    handoff_activity *a = handoff_activity_new("com.example.app.edit-document");
    handoff_activity *back;
    handoff_value *info = make_rich_dictionary();
    if (!CHECK(a != NULL && info != NULL)) return;
    dict_put(info, "doc", str_value("doc-42"));
    dict_put(info, "page", int_value(7));

    CHECK_OK(handoff_activity_set_title(a, "Editing \xe2\x80\x9cQ3 report\xe2\x80\x9d"));
    CHECK_OK(handoff_activity_set_webpage_url(a, "https://example.com/doc/42"));
    CHECK_OK(handoff_activity_set_referrer_url(a, "http://referrer.example/"));
    CHECK_OK(handoff_activity_set_target_content_identifier(a, "window-3"));
    CHECK_OK(handoff_activity_set_persistent_identifier(a, "persist-9"));
    CHECK_OK(handoff_activity_set_expiration_date(a, 1900000000.5));
    CHECK_OK(handoff_activity_set_keywords(a, keywords, ARRAY_COUNT(keywords)));
    CHECK_OK(handoff_activity_set_required_user_info_keys(a, required, ARRAY_COUNT(required)));
    CHECK_OK(handoff_activity_set_user_info(a, info));
    /* Every transmitted flag away from its default. */
    CHECK_OK(handoff_activity_set_flag(a, HANDOFF_ACTIVITY_ELIGIBLE_FOR_HANDOFF, 0));
    CHECK_OK(handoff_activity_set_flag(a, HANDOFF_ACTIVITY_ELIGIBLE_FOR_SEARCH, 1));
    CHECK_OK(handoff_activity_set_flag(a, HANDOFF_ACTIVITY_ELIGIBLE_FOR_PUBLIC_INDEXING, 1));
    CHECK_OK(handoff_activity_set_flag(a, HANDOFF_ACTIVITY_ELIGIBLE_FOR_PREDICTION, 1));
    CHECK_OK(handoff_activity_set_flag(a, HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS, 1));
    CHECK(handoff_activity_user_info_size(a) <= HANDOFF_USER_INFO_BUDGET);

    back = encode_decode_activity(a);
    if (back != NULL) {
        check_activities_equal(a, back, 0);
        /* And the decoded one re-encodes to the same thing. */
        {
            handoff_activity *again = encode_decode_activity(back);
            if (again != NULL) check_activities_equal(a, again, 0);
            handoff_activity_free(again);
        }
    }
    handoff_activity_free(back);

    /* The other way round: every flag at its default, nothing optional set. */
    {
        handoff_activity *plain = handoff_activity_new("org.example.plain");
        handoff_activity *plain_back = plain ? encode_decode_activity(plain) : NULL;
        if (plain_back != NULL) {
            const char *missing;
            check_activities_equal(plain, plain_back, 0);
            CHECK_NULL_ERR(handoff_activity_get_title(plain_back), HANDOFF_E_NOT_FOUND);
            missing = handoff_activity_get_webpage_url(plain_back);
            CHECK(missing == NULL);
        }
        /* Flags at the opposite values. */
        if (plain != NULL) {
            CHECK_OK(handoff_activity_set_flag(plain, HANDOFF_ACTIVITY_ELIGIBLE_FOR_HANDOFF, 1));
            CHECK_OK(handoff_activity_set_flag(plain, HANDOFF_ACTIVITY_ELIGIBLE_FOR_SEARCH, 0));
            CHECK_OK(handoff_activity_set_flag(plain, HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS, 1));
            handoff_activity_free(plain_back);
            plain_back = encode_decode_activity(plain);
            if (plain_back != NULL) check_activities_equal(plain, plain_back, 0);
        }
        handoff_activity_free(plain_back);
        handoff_activity_free(plain);
    }
    handoff_value_free(info);
    handoff_activity_free(a);
}

static void test_activity_decode_garbage(void) {
    static const char garbage[] = "garbage garbage garbage garbage garbage garbage";
    handoff_activity *a = handoff_activity_new("com.example.app.edit");
    uint8_t *bytes = NULL;
    size_t length = 0, cut;
    int iteration;

    CHECK_NULL_ERR(handoff_activity_decode(garbage, sizeof garbage - 1), HANDOFF_E_MALFORMED_DATA);
    CHECK_NULL_ERR(handoff_activity_decode(garbage, 0), HANDOFF_E_MALFORMED_DATA);
    CHECK_NULL_ERR(handoff_activity_decode("bplist00", 8), HANDOFF_E_MALFORMED_DATA);
    CHECK_NULL_ERR(handoff_activity_decode(NULL, 0), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_activity_decode(NULL, 10), HANDOFF_E_INVALID_ARGUMENT);

    /* A valid property list that is not an activity payload. */
    {
        handoff_value *d = make_rich_dictionary();
        handoff_value *i = int_value(1);
        encode_or_fail(d, &bytes, &length);
        if (bytes) CHECK_NULL_ERR(handoff_activity_decode(bytes, length), HANDOFF_E_MALFORMED_DATA);
        handoff_free(bytes);
        encode_or_fail(i, &bytes, &length);
        if (bytes) CHECK_NULL_ERR(handoff_activity_decode(bytes, length), HANDOFF_E_MALFORMED_DATA);
        handoff_free(bytes);
        handoff_value_free(d);
        handoff_value_free(i);
    }

    /* Truncations and flips of a real payload. */
    if (!CHECK(a != NULL)) return;
    {
        handoff_value *info = make_rich_dictionary();
        CHECK_OK(handoff_activity_set_user_info(a, info));
        CHECK_OK(handoff_activity_set_title(a, "Title"));
        handoff_value_free(info);
    }
    if (CHECK_EQ_INT(handoff_activity_encode(a, &bytes, &length), HANDOFF_OK) && CHECK(length > 0)) {
        uint8_t *mutated = (uint8_t *)malloc(length);
        for (cut = 0; cut < length && mutated != NULL; cut++) {
            handoff_activity *back;
            memcpy(mutated, bytes, cut);
            prime_error(HANDOFF_E_MALFORMED_DATA);
            back = handoff_activity_decode(mutated, cut);
            if (!CHECK(back == NULL)) CHECK_FAIL("truncated payload (%zu bytes) decoded", cut);
            if (!CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_MALFORMED_DATA))
                CHECK_FAIL("truncation to %zu", cut);
            handoff_activity_free(back);
        }
        prng_state = 0xA5A5A5A55A5A5A5Aull;
        for (iteration = 0; iteration < 2000 && mutated != NULL; iteration++) {
            handoff_activity *back;
            int f;
            memcpy(mutated, bytes, length);
            for (f = 0; f < 1 + (int)(prng_next() % 3); f++)
                mutated[prng_next() % length] ^= (uint8_t)(1u << (prng_next() % 8));
            prime_error(HANDOFF_E_MALFORMED_DATA);
            back = handoff_activity_decode(mutated, length);
            if (back == NULL) {
                int code = handoff_last_error_code();
                if (!CHECK(code == HANDOFF_E_MALFORMED_DATA || code == HANDOFF_E_USER_INFO_TOO_LARGE))
                    CHECK_FAIL("flip #%d gave %d", iteration, code);
            } else {
                CHECK(handoff_activity_get_type(back) != NULL);
                CHECK(handoff_activity_get_id(back) != NULL);
                handoff_activity_free(back);
            }
        }
        free(mutated);
        /* Intact, it decodes. */
        {
            handoff_activity *back = handoff_activity_decode(bytes, length);
            CHECK(back != NULL);
            handoff_activity_free(back);
        }
    }
    handoff_free(bytes);
    handoff_activity_free(a);
}

/* ------------------------------------------------------------------------ */
/* Manifests                                                                */
/* ------------------------------------------------------------------------ */

static void test_manifest_new(void) {
    handoff_manifest *m = handoff_manifest_new("com.example.app", "A1B2C3D4E5");
    char team32[33], team33[34];
    if (CHECK(m != NULL)) {
        CHECK_EQ_STR(handoff_manifest_get_bundle_identifier(m), "com.example.app");
        CHECK_EQ_STR(handoff_manifest_get_team_identifier(m), "A1B2C3D4E5");
        CHECK_EQ_INT(handoff_manifest_activity_type_count(m), 0);
        CHECK(handoff_manifest_activity_type_at(m, 0) == NULL);
        CHECK_EQ_INT(handoff_manifest_declares(m, "com.example.app.edit"), 0);
    }
    handoff_manifest_free(m);

    memset(team32, 'Z', 32);
    team32[32] = '\0';
    memset(team33, '9', 33);
    team33[33] = '\0';
    m = handoff_manifest_new("a.b", team32);
    CHECK(m != NULL);
    handoff_manifest_free(m);
    m = handoff_manifest_new("a.b", "x");
    CHECK(m != NULL);
    handoff_manifest_free(m);

    CHECK_NULL_ERR(handoff_manifest_new(NULL, "A1B2C3D4E5"), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_manifest_new("com.example.app", NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_manifest_new("notreverse", "A1B2C3D4E5"), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_manifest_new("com example app", "A1B2C3D4E5"), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_manifest_new("", "A1B2C3D4E5"), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_manifest_new("com.example.app", ""), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_manifest_new("com.example.app", team33), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_manifest_new("com.example.app", "ABC-123"), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_manifest_new("com.example.app", "ABCDE12345."), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_manifest_new("com.example.app", "\xc3\x84" "BC"), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_manifest_new("com.example.app", "bad\xff"), HANDOFF_E_INVALID_VALUE);
}

static void test_manifest_declare(void) {
    handoff_manifest *m = handoff_manifest_new("com.example.app", "TEAM1");
    if (!CHECK(m != NULL)) return;
    CHECK_OK(handoff_manifest_declare_activity_type(m, "com.example.app.view"));
    CHECK_OK(handoff_manifest_declare_activity_type(m, "com.example.app.edit"));
    CHECK_OK(handoff_manifest_declare_activity_type(m, "com.example.app.view")); /* harmless */
    CHECK_EQ_INT(handoff_manifest_activity_type_count(m), 2);
    /* Declaration order, not sorted. */
    CHECK_EQ_STR(handoff_manifest_activity_type_at(m, 0), "com.example.app.view");
    CHECK_EQ_STR(handoff_manifest_activity_type_at(m, 1), "com.example.app.edit");
    CHECK(handoff_manifest_activity_type_at(m, 2) == NULL);
    CHECK(handoff_manifest_activity_type_at(m, (size_t)-1) == NULL);
    CHECK_EQ_INT(handoff_manifest_declares(m, "com.example.app.view"), 1);
    CHECK_EQ_INT(handoff_manifest_declares(m, "com.example.app.edit"), 1);
    CHECK_EQ_INT(handoff_manifest_declares(m, "com.example.app.other"), 0);
    CHECK_EQ_INT(handoff_manifest_declares(m, "com.example.app.EDIT"), 0);
    CHECK_EQ_INT(handoff_manifest_declares(m, NULL), 0);
    CHECK_EQ_INT(handoff_manifest_declares(NULL, "com.example.app.edit"), 0);

    CHECK_STATUS(handoff_manifest_declare_activity_type(m, "bad\ttype"), HANDOFF_E_INVALID_VALUE);
    CHECK_STATUS(handoff_manifest_declare_activity_type(m, ""), HANDOFF_E_INVALID_VALUE);
    CHECK_STATUS(handoff_manifest_declare_activity_type(m, "com.example.\xff"), HANDOFF_E_INVALID_VALUE);
    CHECK_STATUS(handoff_manifest_declare_activity_type(m, NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_manifest_declare_activity_type(NULL, "com.example.app.x"), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_EQ_INT(handoff_manifest_activity_type_count(m), 2);
    CHECK_EQ_INT(handoff_manifest_declares(m, "nodots"), 0);
    handoff_manifest_free(m);
}

static const char xml_info_plist[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" "
    "\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
    "<plist version=\"1.0\">\n"
    "<dict>\n"
    "  <key>CFBundleDisplayName</key>\n"
    "  <string>XML App</string>\n"
    "  <key>CFBundleIdentifier</key>\n"
    "  <string>com.example.xmlapp</string>\n"
    "  <key>HandoffTeamIdentifier</key>\n"
    "  <string>A1B2C3D4E5</string>\n"
    "  <key>NSUserActivityTypes</key>\n"
    "  <array>\n"
    "    <string>com.example.xmlapp.view</string>\n"
    "    <string>com.example.xmlapp.edit</string>\n"
    "  </array>\n"
    "  <key>CFBundleVersion</key>\n"
    "  <integer>12</integer>\n"
    "</dict>\n"
    "</plist>\n";

/* plistlib.dumps({"CFBundleIdentifier": "com.example.binapp",
 *                 "HandoffTeamIdentifier": "TEAM123456",
 *                 "NSUserActivityTypes": ["com.example.binapp.edit",
 *                                         "com.example.binapp.view"],
 *                 "CFBundleName": "BinApp"}, fmt=plistlib.FMT_BINARY) */
static const unsigned char binary_info_plist[] = {
    0x62, 0x70, 0x6c, 0x69, 0x73, 0x74, 0x30, 0x30, 0xd4, 0x01, 0x02, 0x03,
    0x04, 0x05, 0x06, 0x07, 0x08, 0x5f, 0x10, 0x12, 0x43, 0x46, 0x42, 0x75,
    0x6e, 0x64, 0x6c, 0x65, 0x49, 0x64, 0x65, 0x6e, 0x74, 0x69, 0x66, 0x69,
    0x65, 0x72, 0x5c, 0x43, 0x46, 0x42, 0x75, 0x6e, 0x64, 0x6c, 0x65, 0x4e,
    0x61, 0x6d, 0x65, 0x5f, 0x10, 0x15, 0x48, 0x61, 0x6e, 0x64, 0x6f, 0x66,
    0x66, 0x54, 0x65, 0x61, 0x6d, 0x49, 0x64, 0x65, 0x6e, 0x74, 0x69, 0x66,
    0x69, 0x65, 0x72, 0x5f, 0x10, 0x13, 0x4e, 0x53, 0x55, 0x73, 0x65, 0x72,
    0x41, 0x63, 0x74, 0x69, 0x76, 0x69, 0x74, 0x79, 0x54, 0x79, 0x70, 0x65,
    0x73, 0x5f, 0x10, 0x12, 0x63, 0x6f, 0x6d, 0x2e, 0x65, 0x78, 0x61, 0x6d,
    0x70, 0x6c, 0x65, 0x2e, 0x62, 0x69, 0x6e, 0x61, 0x70, 0x70, 0x56, 0x42,
    0x69, 0x6e, 0x41, 0x70, 0x70, 0x5a, 0x54, 0x45, 0x41, 0x4d, 0x31, 0x32,
    0x33, 0x34, 0x35, 0x36, 0xa2, 0x09, 0x0a, 0x5f, 0x10, 0x17, 0x63, 0x6f,
    0x6d, 0x2e, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x2e, 0x62, 0x69,
    0x6e, 0x61, 0x70, 0x70, 0x2e, 0x65, 0x64, 0x69, 0x74, 0x5f, 0x10, 0x17,
    0x63, 0x6f, 0x6d, 0x2e, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x2e,
    0x62, 0x69, 0x6e, 0x61, 0x70, 0x70, 0x2e, 0x76, 0x69, 0x65, 0x77, 0x08,
    0x11, 0x26, 0x33, 0x4b, 0x61, 0x76, 0x7d, 0x88, 0x8b, 0xa5, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0xbf,
};

/* Writes text to a temp file and loads it as a manifest. */
static handoff_manifest *load_text(const char *text, char *path, size_t path_size) {
    handoff_manifest *m;
    if (!CHECK(write_temp_file(text, strlen(text), path, path_size))) return NULL;
    m = handoff_manifest_load(path);
    unlink(path);
    return m;
}

/* Web domains (Apple's associated domains): host names, "*." in front for
 * every host under one; lowercase; a 33rd refused. */
static void test_manifest_web_domains(void) {
    handoff_manifest *m = handoff_manifest_new("com.example.app", "TEAM1");
    if (!CHECK(m != NULL)) return;
    CHECK_EQ_INT(handoff_manifest_web_domain_count(m), 0);
    CHECK_OK(handoff_manifest_declare_web_domain(m, "Example.COM"));
    CHECK_OK(handoff_manifest_declare_web_domain(m, "*.docs.example.org"));
    CHECK_OK(handoff_manifest_declare_web_domain(m, "example.com")); /* harmless */
    CHECK_EQ_INT(handoff_manifest_web_domain_count(m), 2);
    CHECK_EQ_STR(handoff_manifest_web_domain_at(m, 0), "example.com");
    CHECK_EQ_STR(handoff_manifest_web_domain_at(m, 1), "*.docs.example.org");
    CHECK(handoff_manifest_web_domain_at(m, 2) == NULL);
    const char *bad[] = {"", "*.", "https://example.com", "example.com/path", "example.com:443",
                         "exa mple.com", "a..b", "-a.com", "a*.example.com", "*example.com",
                         "\xc3\xa9xample.com"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK_STATUS(handoff_manifest_declare_web_domain(m, bad[i]), HANDOFF_E_INVALID_VALUE);
    CHECK_STATUS(handoff_manifest_declare_web_domain(m, NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_manifest_declare_web_domain(NULL, "example.com"), HANDOFF_E_INVALID_ARGUMENT);
    char name[32];
    for (int i = 2; i < 32; i++) {
        snprintf(name, sizeof name, "d%d.example.net", i);
        CHECK_OK(handoff_manifest_declare_web_domain(m, name));
    }
    CHECK_STATUS(handoff_manifest_declare_web_domain(m, "one-more.example.net"), HANDOFF_E_INVALID_VALUE);
    CHECK_EQ_INT(handoff_manifest_web_domain_count(m), 32);
    CHECK_EQ_INT(handoff_manifest_web_domain_count(NULL), 0);
    handoff_manifest_free(m);
}

static void test_manifest_load_xml(void) {
    char path[512];
    handoff_manifest *m;
    if (!CHECK(write_temp_file(xml_info_plist, strlen(xml_info_plist), path, sizeof path))) return;
    m = handoff_manifest_load(path);
    unlink(path);
    if (!CHECK(m != NULL)) {
        CHECK_FAIL("load: %s", handoff_last_error_message());
        return;
    }
    CHECK_EQ_STR(handoff_manifest_get_bundle_identifier(m), "com.example.xmlapp");
    CHECK_EQ_STR(handoff_manifest_get_team_identifier(m), "A1B2C3D4E5");
    CHECK_EQ_INT(handoff_manifest_activity_type_count(m), 2);
    CHECK_EQ_STR(handoff_manifest_activity_type_at(m, 0), "com.example.xmlapp.view");
    CHECK_EQ_STR(handoff_manifest_activity_type_at(m, 1), "com.example.xmlapp.edit");
    CHECK_EQ_INT(handoff_manifest_declares(m, "com.example.xmlapp.edit"), 1);
    CHECK_EQ_INT(handoff_manifest_declares(m, "com.example.binapp.edit"), 0);
    /* A loaded manifest can declare more. */
    CHECK_OK(handoff_manifest_declare_activity_type(m, "com.example.xmlapp.share"));
    CHECK_EQ_INT(handoff_manifest_activity_type_count(m), 3);
    handoff_manifest_free(m);

    /* From memory, too. */
    m = handoff_manifest_load_data(xml_info_plist, strlen(xml_info_plist));
    if (CHECK(m != NULL)) CHECK_EQ_STR(handoff_manifest_get_team_identifier(m), "A1B2C3D4E5");
    handoff_manifest_free(m);
}

static void test_manifest_load_binary(void) {
    char path[512];
    handoff_manifest *m;
    if (!CHECK(write_temp_file(binary_info_plist, sizeof binary_info_plist, path, sizeof path))) return;
    m = handoff_manifest_load(path);
    unlink(path);
    if (!CHECK(m != NULL)) {
        CHECK_FAIL("load: %s", handoff_last_error_message());
    } else {
        CHECK_EQ_STR(handoff_manifest_get_bundle_identifier(m), "com.example.binapp");
        CHECK_EQ_STR(handoff_manifest_get_team_identifier(m), "TEAM123456");
        CHECK_EQ_INT(handoff_manifest_activity_type_count(m), 2);
        CHECK_EQ_STR(handoff_manifest_activity_type_at(m, 0), "com.example.binapp.edit");
        CHECK_EQ_STR(handoff_manifest_activity_type_at(m, 1), "com.example.binapp.view");
        CHECK_EQ_INT(handoff_manifest_declares(m, "com.example.binapp.view"), 1);
    }
    handoff_manifest_free(m);

    m = handoff_manifest_load_data(binary_info_plist, sizeof binary_info_plist);
    if (CHECK(m != NULL)) CHECK_EQ_STR(handoff_manifest_get_bundle_identifier(m), "com.example.binapp");
    handoff_manifest_free(m);

    /* Truncated binary: malformed. */
    CHECK_NULL_ERR(handoff_manifest_load_data(binary_info_plist, sizeof binary_info_plist - 10),
                   HANDOFF_E_MALFORMED_DATA);
}

#define PLIST_HEAD                                                                              \
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n"
#define PLIST_TAIL "</dict>\n</plist>\n"

static void test_manifest_load_errors(void) {
    char path[512];
    handoff_manifest *m;

    /* No team at all. */
    prime_error(HANDOFF_E_MALFORMED_DATA);
    m = load_text(PLIST_HEAD "<key>CFBundleIdentifier</key><string>com.example.noteam</string>\n"
                             "<key>NSUserActivityTypes</key><array><string>com.example.noteam.a</string></array>\n"
                  PLIST_TAIL, path, sizeof path);
    CHECK(m == NULL);
    CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_MALFORMED_DATA);
    CHECK(handoff_last_error_message()[0] != '\0');
    handoff_manifest_free(m);

    /* AppIdentifierPrefix with its trailing dot. */
    m = load_text(PLIST_HEAD "<key>CFBundleIdentifier</key><string>com.example.prefixed</string>\n"
                             "<key>AppIdentifierPrefix</key><string>ABCDE12345.</string>\n"
                  PLIST_TAIL, path, sizeof path);
    if (CHECK(m != NULL)) {
        CHECK_EQ_STR(handoff_manifest_get_team_identifier(m), "ABCDE12345");
        CHECK_EQ_STR(handoff_manifest_get_bundle_identifier(m), "com.example.prefixed");
    } else {
        CHECK_FAIL("load: %s", handoff_last_error_message());
    }
    handoff_manifest_free(m);

    /* HandoffTeamIdentifier wins over AppIdentifierPrefix. */
    m = load_text(PLIST_HEAD "<key>CFBundleIdentifier</key><string>com.example.both</string>\n"
                             "<key>AppIdentifierPrefix</key><string>ABCDE12345.</string>\n"
                             "<key>HandoffTeamIdentifier</key><string>ZZZZZ99999</string>\n"
                  PLIST_TAIL, path, sizeof path);
    if (CHECK(m != NULL)) CHECK_EQ_STR(handoff_manifest_get_team_identifier(m), "ZZZZZ99999");
    handoff_manifest_free(m);

    /* NSUserActivityTypes with a non-string element: the element is
     * skipped (with a warning on the manifest), the others kept; intent
     * class names and short names are types. */
    m = load_text(PLIST_HEAD "<key>CFBundleIdentifier</key><string>com.example.badtypes</string>\n"
                             "<key>HandoffTeamIdentifier</key><string>A1B2C3D4E5</string>\n"
                             "<key>NSUserActivityTypes</key><array><string>com.example.badtypes.a</string>"
                             "<integer>5</integer><string>INSendMessageIntent</string></array>\n"
                  PLIST_TAIL, path, sizeof path);
    if (CHECK(m != NULL)) {
        CHECK_EQ_INT(handoff_manifest_activity_type_count(m), 2);
        CHECK_EQ_INT(handoff_manifest_declares(m, "INSendMessageIntent"), 1);
    } else {
        CHECK_FAIL("load: %s", handoff_last_error_message());
    }
    handoff_manifest_free(m);

    /* NSUserActivityTypes not an array: loaded, no types, one warning. */
    m = load_text(PLIST_HEAD "<key>CFBundleIdentifier</key><string>com.example.badtypes</string>\n"
                             "<key>HandoffTeamIdentifier</key><string>A1B2C3D4E5</string>\n"
                             "<key>NSUserActivityTypes</key><string>com.example.badtypes.a</string>\n"
                  PLIST_TAIL, path, sizeof path);
    if (CHECK(m != NULL)) {
        CHECK_EQ_INT(handoff_manifest_activity_type_count(m), 0);
        CHECK_EQ_INT(handoff_manifest_warning_count(m), 1);
        CHECK(strstr(handoff_manifest_warning_at(m, 0), "NSUserActivityTypes is the string") != NULL);
        CHECK(strstr(handoff_manifest_warning_at(m, 0), "not an array: no activity types are declared") != NULL);
    } else {
        CHECK_FAIL("load: %s", handoff_last_error_message());
    }
    handoff_manifest_free(m);

    /* A key repeated in one dict: the last value wins, one warning each. */
    m = load_text(PLIST_HEAD "<key>CFBundleIdentifier</key><string>com.example.first</string>\n"
                             "<key>HandoffTeamIdentifier</key><string>A1B2C3D4E5</string>\n"
                             "<key>CFBundleIdentifier</key><string>com.example.last</string>\n"
                  PLIST_TAIL, path, sizeof path);
    if (CHECK(m != NULL)) {
        CHECK_EQ_STR(handoff_manifest_get_bundle_identifier(m), "com.example.last");
        CHECK_EQ_INT(handoff_manifest_warning_count(m), 1);
        CHECK(strstr(handoff_manifest_warning_at(m, 0), "the key \"CFBundleIdentifier\" appears twice in one <dict>: the last value is used") != NULL);
    } else {
        CHECK_FAIL("load: %s", handoff_last_error_message());
    }
    handoff_manifest_free(m);

    /* No CFBundleIdentifier; CFBundleIdentifier of the wrong type. */
    prime_error(HANDOFF_E_MALFORMED_DATA);
    m = load_text(PLIST_HEAD "<key>HandoffTeamIdentifier</key><string>A1B2C3D4E5</string>\n" PLIST_TAIL,
                  path, sizeof path);
    CHECK(m == NULL);
    CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_MALFORMED_DATA);
    handoff_manifest_free(m);
    prime_error(HANDOFF_E_MALFORMED_DATA);
    m = load_text(PLIST_HEAD "<key>CFBundleIdentifier</key><integer>3</integer>\n"
                             "<key>HandoffTeamIdentifier</key><string>A1B2C3D4E5</string>\n" PLIST_TAIL,
                  path, sizeof path);
    CHECK(m == NULL);
    CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_MALFORMED_DATA);
    handoff_manifest_free(m);

    /* Not a property list; an empty file; a plist that is not a dict. */
    prime_error(HANDOFF_E_MALFORMED_DATA);
    m = load_text("this is not a plist\n", path, sizeof path);
    CHECK(m == NULL);
    CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_MALFORMED_DATA);
    handoff_manifest_free(m);
    prime_error(HANDOFF_E_MALFORMED_DATA);
    m = load_text("", path, sizeof path);
    CHECK(m == NULL);
    CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_MALFORMED_DATA);
    handoff_manifest_free(m);
    prime_error(HANDOFF_E_MALFORMED_DATA);
    m = load_text("<?xml version=\"1.0\"?><plist version=\"1.0\"><array/></plist>", path, sizeof path);
    CHECK(m == NULL);
    CHECK_EQ_INT(handoff_last_error_code(), HANDOFF_E_MALFORMED_DATA);
    handoff_manifest_free(m);

    /* Missing file, a directory: I/O errors. */
    CHECK_NULL_ERR(handoff_manifest_load("/nonexistent/dir/Info.plist"), HANDOFF_E_IO);
    CHECK_NULL_ERR(handoff_manifest_load("/tmp/handoff-test-definitely-missing-Info.plist"), HANDOFF_E_IO);
    CHECK(strstr(handoff_last_error_message(), "definitely-missing") != NULL);
    CHECK_NULL_ERR(handoff_manifest_load("/"), HANDOFF_E_IO);

    /* NULL path / bytes: refused (the header does not name the code). */
    prime_error(HANDOFF_E_INVALID_ARGUMENT);
    CHECK(handoff_manifest_load(NULL) == NULL);
    CHECK(handoff_last_error_code() == HANDOFF_E_INVALID_ARGUMENT);
    prime_error(HANDOFF_E_INVALID_ARGUMENT);
    CHECK(handoff_manifest_load_data(NULL, 10) == NULL);
    CHECK(handoff_last_error_code() == HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_manifest_load_data("", 0), HANDOFF_E_MALFORMED_DATA);
}

/* NSUserActivityTypes entries that cannot be types (an empty string, an
 * integer) are skipped: the Info.plist loads, the valid entries (reverse-DNS,
 * intent class name, short name) are declared, and each skipped entry is one
 * warning naming it and what it was. */
static void test_manifest_load_warnings(void) {
    char path[512];
    handoff_manifest *m;
    const char *w0, *w1;

    m = load_text(PLIST_HEAD "<key>CFBundleIdentifier</key><string>com.example.warned</string>\n"
                             "<key>HandoffTeamIdentifier</key><string>A1B2C3D4E5</string>\n"
                             "<key>NSUserActivityTypes</key><array>"
                             "<string>com.example.warned.edit</string>"
                             "<string></string>"
                             "<string>INSendMessageIntent</string>"
                             "<integer>42</integer>"
                             "<string>ReadArticle</string></array>\n"
                  PLIST_TAIL, path, sizeof path);
    if (!CHECK(m != NULL)) {
        CHECK_FAIL("load: %s", handoff_last_error_message());
        return;
    }
    CHECK_EQ_INT(handoff_manifest_activity_type_count(m), 3);
    CHECK_EQ_STR(handoff_manifest_activity_type_at(m, 0), "com.example.warned.edit");
    CHECK_EQ_STR(handoff_manifest_activity_type_at(m, 1), "INSendMessageIntent");
    CHECK_EQ_STR(handoff_manifest_activity_type_at(m, 2), "ReadArticle");
    CHECK_EQ_INT(handoff_manifest_declares(m, "ReadArticle"), 1);
    CHECK_EQ_INT(handoff_manifest_declares(m, ""), 0);

    CHECK_EQ_INT(handoff_manifest_warning_count(m), 2);
    w0 = handoff_manifest_warning_at(m, 0);
    w1 = handoff_manifest_warning_at(m, 1);
    if (CHECK(w0 != NULL)) {
        CHECK(strstr(w0, "NSUserActivityTypes[1]") != NULL);
        CHECK(strstr(w0, "empty") != NULL);
    }
    if (CHECK(w1 != NULL)) {
        CHECK(strstr(w1, "NSUserActivityTypes[3]") != NULL);
        CHECK(strstr(w1, "integer (42)") != NULL);
    }
    /* Borrowed until the manifest is freed: declaring adds no warning and
     * leaves the pointers as they were. */
    CHECK_OK(handoff_manifest_declare_activity_type(m, "com.example.warned.share"));
    CHECK_EQ_INT(handoff_manifest_warning_count(m), 2);
    CHECK(handoff_manifest_warning_at(m, 0) == w0);
    if (w1) CHECK(strstr(w1, "NSUserActivityTypes[3]") != NULL);

    /* Out of range: NULL, no error recorded (as for the type accessors). */
    prime_error(HANDOFF_E_INVALID_ARGUMENT);
    CHECK(handoff_manifest_warning_at(m, 2) == NULL);
    CHECK(handoff_manifest_warning_at(m, (size_t)-1) == NULL);
    CHECK(handoff_last_error_code() != HANDOFF_E_INVALID_ARGUMENT);
    handoff_manifest_free(m);

    /* From memory: the warnings name the Info.plist the same way. */
    {
        static const char text[] = PLIST_HEAD
            "<key>CFBundleIdentifier</key><string>com.example.warned</string>\n"
            "<key>HandoffTeamIdentifier</key><string>A1B2C3D4E5</string>\n"
            "<key>NSUserActivityTypes</key><array><true/><string>ReadArticle</string></array>\n"
            PLIST_TAIL;
        m = handoff_manifest_load_data(text, sizeof text - 1);
        if (CHECK(m != NULL)) {
            CHECK_EQ_INT(handoff_manifest_activity_type_count(m), 1);
            CHECK_EQ_INT(handoff_manifest_warning_count(m), 1);
            if (CHECK(handoff_manifest_warning_at(m, 0) != NULL))
                CHECK(strstr(handoff_manifest_warning_at(m, 0), "Info.plist: NSUserActivityTypes[0]") != NULL);
        }
        handoff_manifest_free(m);
    }

    /* A clean Info.plist and a built manifest have none. */
    m = handoff_manifest_load_data(xml_info_plist, strlen(xml_info_plist));
    if (CHECK(m != NULL)) CHECK_EQ_INT(handoff_manifest_warning_count(m), 0);
    handoff_manifest_free(m);
    m = handoff_manifest_new("com.example.app", "A1B2C3D4E5");
    if (CHECK(m != NULL)) {
        CHECK_EQ_INT(handoff_manifest_warning_count(m), 0);
        CHECK(handoff_manifest_warning_at(m, 0) == NULL);
    }
    handoff_manifest_free(m);

    /* NULL manifest. */
    CHECK_EQ_INT(handoff_manifest_warning_count(NULL), 0);
    CHECK_NULL_ERR(handoff_manifest_warning_at(NULL, 0), HANDOFF_E_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------------ */
/* NULL safety                                                              */
/* ------------------------------------------------------------------------ */

static void test_null_safety(void) {
    size_t length = 5;
    int b = 0;
    double d = 0;
    double when = 0;

    handoff_free(NULL);
    handoff_value_free(NULL);
    handoff_activity_free(NULL);
    handoff_manifest_free(NULL);

    CHECK_EQ_INT(handoff_value_get_kind(NULL), HANDOFF_VALUE_NULL);
    CHECK_EQ_INT(handoff_value_count(NULL), 0);
    CHECK_EQ_INT(handoff_value_equal(NULL, NULL), 0);
    CHECK(handoff_value_copy(NULL) == NULL);
    CHECK(handoff_value_get_string(NULL, &length) == NULL);
    length = 5;
    CHECK(handoff_value_get_data(NULL, &length) == NULL);
    CHECK_EQ_INT(length, 0);
    CHECK(handoff_value_get_url(NULL) == NULL);
    CHECK(handoff_value_get_boolean(NULL, &b) == HANDOFF_E_INVALID_ARGUMENT);
    CHECK(handoff_value_get_real(NULL, &d) == HANDOFF_E_INVALID_ARGUMENT);
    CHECK(handoff_value_get_date(NULL, &d) == HANDOFF_E_INVALID_ARGUMENT);
    CHECK(handoff_value_array_get(NULL, 0) == NULL);
    CHECK(handoff_value_dictionary_get(NULL, "k") == NULL);
    CHECK(handoff_value_dictionary_key_at(NULL, 0) == NULL);
    CHECK(handoff_value_dictionary_value_at(NULL, 0) == NULL);
    CHECK(handoff_value_set_member_at(NULL, 0) == NULL);
    CHECK(handoff_value_decode(NULL, 0) == NULL);

    CHECK(handoff_activity_get_type(NULL) == NULL);
    CHECK(handoff_activity_get_id(NULL) == NULL);
    CHECK(handoff_activity_get_title(NULL) == NULL);
    CHECK(handoff_activity_get_webpage_url(NULL) == NULL);
    CHECK(handoff_activity_get_referrer_url(NULL) == NULL);
    CHECK(handoff_activity_get_target_content_identifier(NULL) == NULL);
    CHECK(handoff_activity_get_persistent_identifier(NULL) == NULL);
    CHECK(handoff_activity_get_expiration_date(NULL, &when) != HANDOFF_OK);
    CHECK_EQ_INT(handoff_activity_keyword_count(NULL), 0);
    CHECK(handoff_activity_keyword_at(NULL, 0) == NULL);
    CHECK_EQ_INT(handoff_activity_required_user_info_key_count(NULL), 0);
    CHECK(handoff_activity_required_user_info_key_at(NULL, 0) == NULL);
    CHECK(handoff_activity_copy_user_info(NULL) == NULL);
    CHECK_EQ_INT(handoff_activity_user_info_size(NULL), 0);
    CHECK(handoff_activity_decode(NULL, 0) == NULL);
    CHECK(handoff_activity_set_title(NULL, "x") == HANDOFF_E_INVALID_ARGUMENT);
    CHECK(handoff_activity_set_keywords(NULL, NULL, 0) == HANDOFF_E_INVALID_ARGUMENT);

    CHECK(handoff_manifest_get_bundle_identifier(NULL) == NULL);
    CHECK(handoff_manifest_get_team_identifier(NULL) == NULL);
    CHECK_EQ_INT(handoff_manifest_activity_type_count(NULL), 0);
    CHECK(handoff_manifest_activity_type_at(NULL, 0) == NULL);
    CHECK_EQ_INT(handoff_manifest_warning_count(NULL), 0);
    CHECK(handoff_manifest_warning_at(NULL, 0) == NULL);
    CHECK_EQ_INT(handoff_manifest_declares(NULL, NULL), 0);
    CHECK(handoff_manifest_load_data(NULL, 0) == NULL);
}

/* ------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    check_init(argc, argv);
    CHECK_RUN(test_version);
    CHECK_RUN(test_status_strings);
    CHECK_RUN(test_last_error);
    CHECK_RUN(test_value_null);
    CHECK_RUN(test_value_boolean);
    CHECK_RUN(test_value_integer);
    CHECK_RUN(test_value_real);
    CHECK_RUN(test_value_string);
    CHECK_RUN(test_value_data);
    CHECK_RUN(test_value_date);
    CHECK_RUN(test_value_url);
    CHECK_RUN(test_value_type_mismatch);
    CHECK_RUN(test_array);
    CHECK_RUN(test_dictionary);
    CHECK_RUN(test_dictionary_keys_are_canonical);
    CHECK_RUN(test_container_added_to_itself);
    CHECK_RUN(test_set);
    CHECK_RUN(test_nested_containers);
    CHECK_RUN(test_value_equal);
    CHECK_RUN(test_value_copy);
    CHECK_RUN(test_value_json);
    CHECK_RUN(test_encode_round_trip_every_kind);
    CHECK_RUN(test_encode_depth_limit);
    CHECK_RUN(test_decode_hostile_basics);
    CHECK_RUN(test_decode_truncations);
    CHECK_RUN(test_decode_random_flips);
    CHECK_RUN(test_decode_random_garbage);
    CHECK_RUN(test_decode_hostile_structures);
    CHECK_RUN(test_activity_new);
    CHECK_RUN(test_activity_ids);
    CHECK_RUN(test_activity_string_properties);
    CHECK_RUN(test_activity_expiration);
    CHECK_RUN(test_activity_flags);
    CHECK_RUN(test_activity_keywords_and_required_keys);
    CHECK_RUN(test_activity_user_info);
    CHECK_RUN(test_activity_missing_required_key);
    CHECK_RUN(test_activity_user_info_too_large);
    CHECK_RUN(test_activity_round_trip);
    CHECK_RUN(test_activity_decode_garbage);
    CHECK_RUN(test_manifest_new);
    CHECK_RUN(test_manifest_declare);
    CHECK_RUN(test_manifest_web_domains);
    CHECK_RUN(test_manifest_load_xml);
    CHECK_RUN(test_manifest_load_binary);
    CHECK_RUN(test_manifest_load_errors);
    CHECK_RUN(test_manifest_load_warnings);
    CHECK_RUN(test_null_safety);
    return check_finish();
}
