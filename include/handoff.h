/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * handoff.h - libhandoff: Handoff for Linux apps.
 *
 * A person starts something in an app on one device and continues it in the
 * same app on another of their devices. The app describes what the person is
 * doing as a *user activity*: an activity type, a title and a
 * small userInfo dictionary. This header is the whole C interface of
 * libhandoff.so; it is hand-written and is the contract.
 *
 * Conventions (read once, they hold for every function below):
 *
 *  - Status. Functions that can fail return an `int` status: HANDOFF_OK (0)
 *    on success, else a `handoff_status` code. Constructors return NULL on
 *    failure. After any failure, handoff_last_error_message() on the same
 *    thread says what went wrong and what to do; a successful call does not
 *    clear it.
 *  - Ownership. A function named *_new, *_copy, *_load or *_decode hands out
 *    a handle the caller owns and releases with the matching *_free, which
 *    accepts NULL. Byte buffers the library allocates for the caller are
 *    released with handoff_free(), never with free().
 *  - Strings. Strings passed in are NUL-terminated UTF-8, borrowed for the
 *    duration of the call; invalid UTF-8 is refused (HANDOFF_E_INVALID_VALUE).
 *    Strings returned as `const char *` are borrowed: each function says how
 *    long the pointer stays valid. Never free them.
 *  - Threads. Any thread may call any function in this header. A handle may
 *    be used from several threads, but a borrowed pointer it returned must
 *    not be used after another thread changes or frees what it points into.
 *  - Out of memory is not reported: like the Swift runtime inside, the
 *    library aborts the process.
 */
#ifndef HANDOFF_H
#define HANDOFF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One export macro: every public symbol is marked, nothing else leaves the
 * library (it is also linked with a version script exporting handoff_*). */
#if defined(__GNUC__) || defined(__clang__)
#define HANDOFF_API __attribute__((visibility("default")))
#else
#define HANDOFF_API
#endif

/* Callback fields carry Apple's names (the table in README.md, "Delegate
 * methods"). A field renamed to them keeps its old name for one release as
 * a deprecated alias of the same storage, an anonymous union of the two:
 * old code builds, with a warning naming the new field; layout and size are
 * unchanged. The _INIT macros brace each such union ({NULL}). Swift, which
 * implements this header, sees the current names only. */
#if defined(__GNUC__) || defined(__clang__)
#define HANDOFF_DEPRECATED_(message) __attribute__((deprecated(message)))
#define HANDOFF_EXTENSION_ __extension__
#else
#define HANDOFF_DEPRECATED_(message)
#define HANDOFF_EXTENSION_
#endif
#if defined(__swift__)
#define HANDOFF_RENAMED_FIELD_(current, old) current
#else
#define HANDOFF_RENAMED_FIELD_(current, old) HANDOFF_EXTENSION_ union { current; old; }
#endif

/* ------------------------------------------------------------------------ */
/* Version                                                                  */
/* ------------------------------------------------------------------------ */

#define HANDOFF_VERSION_MAJOR 0
#define HANDOFF_VERSION_MINOR 4
#define HANDOFF_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH, e.g. 400 for 0.4.0. */
#define HANDOFF_VERSION_NUMBER \
    (HANDOFF_VERSION_MAJOR * 10000 + HANDOFF_VERSION_MINOR * 100 + HANDOFF_VERSION_PATCH)
#define HANDOFF_VERSION_STRING "0.4.0"

/* The version of the library actually loaded, as HANDOFF_VERSION_NUMBER
 * computes it; compare with the macro to detect a header/library mismatch.
 * Any thread. Never fails. */
HANDOFF_API unsigned handoff_version_number(void);

/* The loaded library's version as "MAJOR.MINOR.PATCH". Static storage, never
 * NULL, never free it. Any thread. */
HANDOFF_API const char *handoff_version_string(void);

/* ------------------------------------------------------------------------ */
/* Status codes and errors                                                  */
/* ------------------------------------------------------------------------ */

/* Codes 4608..4863 are Apple's user-activity error domain and keep Apple's
 * numbers; the small codes are the library's own. */
typedef enum handoff_status {
    HANDOFF_OK = 0,
    /* A required argument was NULL or out of range. */
    HANDOFF_E_INVALID_ARGUMENT = 1,
    /* A value was refused: not an allowed userInfo type, a malformed
     * identifier, invalid UTF-8, a non-http(s) web page URL, too deep. */
    HANDOFF_E_INVALID_VALUE = 2,
    /* A value was read as a kind it is not. */
    HANDOFF_E_TYPE_MISMATCH = 3,
    /* What was asked for is absent (a key, an unset property). */
    HANDOFF_E_NOT_FOUND = 4,
    /* Bytes could not be decoded: truncated, corrupt or hostile. */
    HANDOFF_E_MALFORMED_DATA = 5,
    /* A file could not be read or written. */
    HANDOFF_E_IO = 6,
    /* The activity lacks a key named in its required userInfo keys. */
    HANDOFF_E_MISSING_REQUIRED_KEY = 7,
    /* The call does not fit the object's state. */
    HANDOFF_E_INVALID_STATE = 8,
    /* The call was made on a thread it may not be made on. */
    HANDOFF_E_WRONG_THREAD = 9,
    /* A wait ran out of time. */
    HANDOFF_E_TIMED_OUT = 10,
    /* A file's permissions are unsafe (a key readable by others) or forbid
     * the access. */
    HANDOFF_E_PERMISSION = 11,

    /* Apple: NSUserActivityHandoffFailedError. */
    HANDOFF_E_HANDOFF_FAILED = 4608,
    /* Apple: NSUserActivityConnectionUnavailableError. */
    HANDOFF_E_CONNECTION_UNAVAILABLE = 4609,
    /* Apple: NSUserActivityRemoteApplicationTimedOutError. */
    HANDOFF_E_REMOTE_APPLICATION_TIMED_OUT = 4610,
    /* Apple: NSUserActivityHandoffUserInfoTooLargeError. */
    HANDOFF_E_USER_INFO_TOO_LARGE = 4611
} handoff_status;

/* Apple's user-activity error range: a status in it is a Handoff failure the
 * app should present, not a programming error. */
#define HANDOFF_USER_ACTIVITY_ERROR_MINIMUM 4608
#define HANDOFF_USER_ACTIVITY_ERROR_MAXIMUM 4863

/* Encoded userInfo must stay within this many bytes; beyond it a handoff
 * fails with HANDOFF_E_USER_INFO_TOO_LARGE. */
#define HANDOFF_USER_INFO_BUDGET 3072

/* A short static description of a status code, e.g. "userInfo too large";
 * "unknown status" for a code the library does not know. Never NULL, never
 * free it. Any thread. */
HANDOFF_API const char *handoff_status_string(int status);

/* The message of the most recent failure on the calling thread: what went
 * wrong and what to do. "" when nothing failed on this thread yet. Valid
 * until the next failing call on this thread or the thread's exit; never
 * free it. Per-thread, so any thread may call it for its own failures. */
HANDOFF_API const char *handoff_last_error_message(void);

/* The status code of the most recent failure on the calling thread, or
 * HANDOFF_OK when nothing failed on this thread yet. */
HANDOFF_API int handoff_last_error_code(void);

/* Releases a buffer the library allocated for the caller (see
 * handoff_value_encode, handoff_activity_encode). NULL is ignored. */
HANDOFF_API void handoff_free(void *pointer);

/* ------------------------------------------------------------------------ */
/* Values: what a userInfo holds                                            */
/* ------------------------------------------------------------------------ */

/* A userInfo value: exactly the types Handoff carries. Values have value
 * semantics: adding one to a container copies it (cheaply). */
typedef struct handoff_value handoff_value;

typedef enum handoff_value_kind {
    HANDOFF_VALUE_NULL = 0,
    HANDOFF_VALUE_BOOLEAN = 1,
    HANDOFF_VALUE_INTEGER = 2,
    HANDOFF_VALUE_REAL = 3,
    HANDOFF_VALUE_STRING = 4,
    HANDOFF_VALUE_DATA = 5,
    HANDOFF_VALUE_DATE = 6,
    HANDOFF_VALUE_URL = 7,
    HANDOFF_VALUE_ARRAY = 8,
    HANDOFF_VALUE_DICTIONARY = 9,
    HANDOFF_VALUE_SET = 10
} handoff_value_kind;

/* Constructors. Each returns a new value the caller owns (free it with
 * handoff_value_free), or NULL on failure with the last error set:
 *  - new_string: HANDOFF_E_INVALID_ARGUMENT for NULL, HANDOFF_E_INVALID_VALUE
 *    for invalid UTF-8;
 *  - new_data: HANDOFF_E_INVALID_ARGUMENT when bytes is NULL and length > 0
 *    (NULL with length 0 makes empty data);
 *  - new_date: seconds since 1970-01-01T00:00:00Z; HANDOFF_E_INVALID_VALUE
 *    when not finite;
 *  - new_url: HANDOFF_E_INVALID_VALUE unless an absolute URL with a scheme.
 * new_null, new_boolean (any non-zero is true), new_integer, new_real and
 * the empty containers never fail. */
HANDOFF_API handoff_value *handoff_value_new_null(void);
HANDOFF_API handoff_value *handoff_value_new_boolean(int value);
HANDOFF_API handoff_value *handoff_value_new_integer(int64_t value);
HANDOFF_API handoff_value *handoff_value_new_real(double value);
HANDOFF_API handoff_value *handoff_value_new_string(const char *utf8);
HANDOFF_API handoff_value *handoff_value_new_data(const void *bytes, size_t length);
HANDOFF_API handoff_value *handoff_value_new_date(double unix_seconds);
HANDOFF_API handoff_value *handoff_value_new_url(const char *url);
HANDOFF_API handoff_value *handoff_value_new_array(void);
HANDOFF_API handoff_value *handoff_value_new_dictionary(void);
HANDOFF_API handoff_value *handoff_value_new_set(void);

/* A deep copy the caller owns, or NULL (HANDOFF_E_INVALID_ARGUMENT) for
 * NULL. */
HANDOFF_API handoff_value *handoff_value_copy(const handoff_value *value);

/* Releases a value and every borrowed pointer obtained from it. NULL is
 * ignored. Never free a borrowed child (from *_get / *_at) with this. */
HANDOFF_API void handoff_value_free(handoff_value *value);

/* The kind of a value; HANDOFF_VALUE_NULL for a NULL pointer. */
HANDOFF_API handoff_value_kind handoff_value_get_kind(const handoff_value *value);

/* Whether two values are equal (same kind, same contents; integer 1 and
 * real 1.0 differ). 1 or 0; 0 when either is NULL. */
HANDOFF_API int handoff_value_equal(const handoff_value *a, const handoff_value *b);

/* Scalar readers. Each writes the value to *out and returns HANDOFF_OK, or
 * returns HANDOFF_E_TYPE_MISMATCH (value of another kind) or
 * HANDOFF_E_INVALID_ARGUMENT (NULL value or out) and leaves *out alone.
 * Booleans read as 0 or 1; dates as seconds since the Unix epoch. */
HANDOFF_API int handoff_value_get_boolean(const handoff_value *value, int *out);
HANDOFF_API int handoff_value_get_integer(const handoff_value *value, int64_t *out);
HANDOFF_API int handoff_value_get_real(const handoff_value *value, double *out);
HANDOFF_API int handoff_value_get_date(const handoff_value *value, double *out);

/* The UTF-8 text of a string value, NUL-terminated; if length is not NULL
 * it receives the byte length (a decoded string may hold NUL bytes). NULL
 * with HANDOFF_E_TYPE_MISMATCH for another kind. Borrowed: valid until the
 * value is freed. */
HANDOFF_API const char *handoff_value_get_string(const handoff_value *value, size_t *length);

/* The bytes of a data value; if length is not NULL it receives their
 * count. Never NULL for a data value, even an empty one. NULL (and *length
 * 0) with HANDOFF_E_TYPE_MISMATCH for another kind. Borrowed: valid until
 * the value is freed. */
HANDOFF_API const void *handoff_value_get_data(const handoff_value *value, size_t *length);

/* The absolute URL of a URL value, NUL-terminated. NULL with
 * HANDOFF_E_TYPE_MISMATCH for another kind. Borrowed: valid until the value
 * is freed. */
HANDOFF_API const char *handoff_value_get_url(const handoff_value *value);

/* The number of items of an array, entries of a dictionary or members of a
 * set; 0 for any other kind or NULL. */
HANDOFF_API size_t handoff_value_count(const handoff_value *value);

/* Containers. Adding copies the item: the caller keeps ownership of it
 * (adding a container to itself adds a copy of its current contents).
 * Each returns HANDOFF_OK, HANDOFF_E_INVALID_ARGUMENT (NULL argument),
 * HANDOFF_E_TYPE_MISMATCH (container of another kind) or
 * HANDOFF_E_INVALID_VALUE (a dictionary key that is invalid UTF-8 or the
 * reserved "$class"). Nesting deeper than 16 levels is refused later, when
 * the value is encoded or set as a userInfo.
 * Changing a container invalidates every borrowed pointer obtained from it.
 * dictionary_set replaces an existing entry; set_add of a member already
 * present changes nothing. */
HANDOFF_API int handoff_value_array_append(handoff_value *array, const handoff_value *item);
HANDOFF_API int handoff_value_dictionary_set(handoff_value *dictionary, const char *key,
                                             const handoff_value *item);
HANDOFF_API int handoff_value_set_add(handoff_value *set, const handoff_value *member);

/* Removes a dictionary entry. HANDOFF_E_NOT_FOUND when the key is absent. */
HANDOFF_API int handoff_value_dictionary_remove(handoff_value *dictionary, const char *key);

/* Borrowed children. Each returns NULL (last error set) for a NULL or
 * wrong-kind container, an index out of range (HANDOFF_E_INVALID_ARGUMENT)
 * or an absent key (HANDOFF_E_NOT_FOUND). The pointer stays valid until the
 * container is changed or freed; never free it.
 *  - array_get: the item at index, in order;
 *  - dictionary_get: the value for key;
 *  - dictionary_key_at / dictionary_value_at: the entry at index, entries
 *    sorted by key (byte order of UTF-8). Keys are Unicode strings:
 *    canonically equivalent spellings (precomposed "\u00e9" and decomposed
 *    "e\u0301") are one key;
 *  - set_member_at: the member at index, in an unspecified order that stays
 *    the same while the set is unchanged. */
HANDOFF_API const handoff_value *handoff_value_array_get(const handoff_value *array, size_t index);
HANDOFF_API const handoff_value *handoff_value_dictionary_get(const handoff_value *dictionary,
                                                              const char *key);
HANDOFF_API const char *handoff_value_dictionary_key_at(const handoff_value *dictionary,
                                                        size_t index);
HANDOFF_API const handoff_value *handoff_value_dictionary_value_at(const handoff_value *dictionary,
                                                                   size_t index);
HANDOFF_API const handoff_value *handoff_value_set_member_at(const handoff_value *set, size_t index);

/* Encodes a value as a binary property list ("bplist00", readable by
 * Python's plistlib; null, set and URL are tagged dictionaries as
 * docs/PROTOCOL.md describes). On success *bytes receives a buffer the
 * caller releases with handoff_free and *length its size. Errors:
 * HANDOFF_E_INVALID_ARGUMENT (NULL argument), HANDOFF_E_INVALID_VALUE (the
 * value breaks a userInfo rule, e.g. nesting deeper than 16). */
HANDOFF_API int handoff_value_encode(const handoff_value *value, uint8_t **bytes, size_t *length);

/* Decodes a binary property list into a new value the caller owns, or NULL
 * with HANDOFF_E_MALFORMED_DATA for bytes that are not a valid property
 * list of userInfo types (truncated, corrupt, hostile input is safe to pass)
 * or HANDOFF_E_INVALID_ARGUMENT when bytes is NULL. */
HANDOFF_API handoff_value *handoff_value_decode(const void *bytes, size_t length);

/* JSON text (RFC 8259, UTF-8) for JSON-shaped values: null, boolean,
 * integer, finite real, string, array and dictionary. Not a wire format (the
 * property list above is): it is for bindings whose language parses JSON in
 * native code but property lists only in interpreted code (Python). The
 * mapping keeps kinds both ways: an integer is written without fraction or
 * exponent, a real always with one ("3.0", "1e+16"); dictionary keys are
 * written sorted by their Unicode scalars.
 *
 * encode_json: on success *text receives a NUL-terminated buffer the caller
 * releases with handoff_free and *length its size without the NUL. Errors:
 * HANDOFF_E_INVALID_ARGUMENT (NULL argument), HANDOFF_E_INVALID_VALUE (the
 * value breaks a userInfo rule), HANDOFF_E_TYPE_MISMATCH (the value holds
 * data, a date, a URL, a set or a non-finite real: use handoff_value_encode).
 *
 * decode_json: a new value the caller owns, or NULL with
 * HANDOFF_E_INVALID_ARGUMENT (text is NULL) or HANDOFF_E_MALFORMED_DATA:
 * text that is not JSON (invalid UTF-8 and lone surrogate escapes
 * included), a string or key with NUL, an integer beyond 64 bits, a number
 * beyond a double's range, nesting deeper than 16, the reserved key
 * "$class", or more than 16 MiB. A key given twice, or in two canonically
 * equivalent spellings, keeps its last value. Work and memory are linear
 * in length; hostile text is safe to pass. text need not be NUL-terminated.
 *
 * Both: any thread; the value is only read. */
HANDOFF_API int handoff_value_encode_json(const handoff_value *value, char **text, size_t *length);
HANDOFF_API handoff_value *handoff_value_decode_json(const char *text, size_t length);

/* ------------------------------------------------------------------------ */
/* User activities                                                          */
/* ------------------------------------------------------------------------ */

/* A user activity (Apple: NSUserActivity): what the person is doing, so
 * another device can continue it. */
typedef struct handoff_activity handoff_activity;

/* A new activity of a type as an app declares it in NSUserActivityTypes:
 * reverse-DNS ("com.example.app.edit"), an intent class name
 * ("INSendMessageIntent") or a short name ("ReadArticle"), with a fresh
 * unique id, eligible for Handoff, and everything else empty. The caller
 * owns it. NULL with HANDOFF_E_INVALID_ARGUMENT for NULL or
 * HANDOFF_E_INVALID_VALUE for a type that is empty, longer than 255 bytes,
 * not UTF-8 or holds a control character (docs/PROTOCOL.md section 3). */
HANDOFF_API handoff_activity *handoff_activity_new(const char *activity_type);

/* Releases the caller's reference. NULL is ignored. The activity lives on
 * while the library still needs it (e.g. as the current activity). */
HANDOFF_API void handoff_activity_free(handoff_activity *activity);

/* Takes another reference to an activity, e.g. to keep one a callback
 * lent; returns `activity` (NULL for NULL). Release each reference with
 * handoff_activity_free. One activity is always the same pointer: the
 * handle a callback receives is the one the host created, while the host
 * holds it. Any thread. */
HANDOFF_API handoff_activity *handoff_activity_ref(handoff_activity *activity);

/* The activity type and the unique activity id (an uppercase UUID string).
 * Borrowed, valid until the activity is freed; NULL for NULL. */
HANDOFF_API const char *handoff_activity_get_type(const handoff_activity *activity);
HANDOFF_API const char *handoff_activity_get_id(const handoff_activity *activity);

/* Optional string properties. Setting NULL clears the property. The getters
 * return NULL when the property is unset (HANDOFF_E_NOT_FOUND set then),
 * else a borrowed pointer valid until the same property is set again or the
 * activity is freed.
 *  - title: shown to the person on the other device;
 *  - webpage_url: an http or https URL opened in a browser when no app can
 *    continue (HANDOFF_E_INVALID_VALUE for another scheme);
 *  - referrer_url: the referring web page, http or https as well;
 *  - target_content_identifier, persistent_identifier: free-form.
 * Setters return HANDOFF_OK, HANDOFF_E_INVALID_ARGUMENT for a NULL
 * activity, or HANDOFF_E_INVALID_VALUE (nothing changes). */
HANDOFF_API int handoff_activity_set_title(handoff_activity *activity, const char *title);
HANDOFF_API const char *handoff_activity_get_title(const handoff_activity *activity);
HANDOFF_API int handoff_activity_set_webpage_url(handoff_activity *activity, const char *url);
HANDOFF_API const char *handoff_activity_get_webpage_url(const handoff_activity *activity);
HANDOFF_API int handoff_activity_set_referrer_url(handoff_activity *activity, const char *url);
HANDOFF_API const char *handoff_activity_get_referrer_url(const handoff_activity *activity);
HANDOFF_API int handoff_activity_set_target_content_identifier(handoff_activity *activity,
                                                               const char *identifier);
HANDOFF_API const char *handoff_activity_get_target_content_identifier(
    const handoff_activity *activity);
HANDOFF_API int handoff_activity_set_persistent_identifier(handoff_activity *activity,
                                                           const char *identifier);
HANDOFF_API const char *handoff_activity_get_persistent_identifier(
    const handoff_activity *activity);

/* The expiration date in seconds since the Unix epoch: after it the
 * activity is no longer offered to other devices. set: HANDOFF_E_INVALID_VALUE
 * when not finite. clear: removes it. get: HANDOFF_OK with *unix_seconds
 * set, or HANDOFF_E_NOT_FOUND when none is set. */
HANDOFF_API int handoff_activity_set_expiration_date(handoff_activity *activity,
                                                     double unix_seconds);
HANDOFF_API int handoff_activity_clear_expiration_date(handoff_activity *activity);
HANDOFF_API int handoff_activity_get_expiration_date(const handoff_activity *activity,
                                                     double *unix_seconds);

/* Boolean properties of an activity. */
typedef enum handoff_activity_flag {
    /* Advertised to the person's other devices while current (default 1). */
    HANDOFF_ACTIVITY_ELIGIBLE_FOR_HANDOFF = 0,
    /* Kept in this device's history while current and after each save, when
     * the app goes through the agent (default 0): found by its title,
     * keywords and searchable userInfo strings from the desktop's search
     * and `handoff history`, and continued from there (docs/history.md). */
    HANDOFF_ACTIVITY_ELIGIBLE_FOR_SEARCH = 1,
    /* Stored and sent with the activity, as Apple's; nothing on Linux uses
     * them: there is no public index and no prediction (default 0). */
    HANDOFF_ACTIVITY_ELIGIBLE_FOR_PUBLIC_INDEXING = 2,
    HANDOFF_ACTIVITY_ELIGIBLE_FOR_PREDICTION = 3,
    /* Asks for a lazy, coalesced save before the activity is next sent. */
    HANDOFF_ACTIVITY_NEEDS_SAVE = 4,
    /* The receiver may open continuation streams to this app (default 0). */
    HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS = 5
} handoff_activity_flag;

/* Sets (non-zero) or clears a flag. HANDOFF_E_INVALID_ARGUMENT for a NULL
 * activity or an unknown flag. */
HANDOFF_API int handoff_activity_set_flag(handoff_activity *activity, handoff_activity_flag flag,
                                          int value);

/* The flag's value, 1 or 0, in *value. HANDOFF_E_INVALID_ARGUMENT for a NULL
 * argument or an unknown flag. */
HANDOFF_API int handoff_activity_get_flag(const handoff_activity *activity,
                                          handoff_activity_flag flag, int *value);

/* String sets: keywords, the required userInfo keys (the minimal set of
 * keys that makes the activity restorable; an activity missing one is not
 * handed off), and the searchable userInfo keys (the keys whose string
 * values the history may index when the activity is eligible for search:
 * the strings inside their arrays and dictionaries too, never data,
 * numbers, dates or URLs; docs/history.md). set_* replaces the whole set with `count` strings (duplicates
 * collapse; count 0 empties it; strings may be NULL only when count is 0).
 * count returns the number of members; *_at returns the member at index in
 * byte order of UTF-8, borrowed until the set is next replaced or the
 * activity freed, or NULL for an index out of range. */
HANDOFF_API int handoff_activity_set_keywords(handoff_activity *activity,
                                              const char *const *keywords, size_t count);
HANDOFF_API size_t handoff_activity_keyword_count(const handoff_activity *activity);
HANDOFF_API const char *handoff_activity_keyword_at(const handoff_activity *activity,
                                                    size_t index);
HANDOFF_API int handoff_activity_set_required_user_info_keys(handoff_activity *activity,
                                                             const char *const *keys,
                                                             size_t count);
HANDOFF_API size_t handoff_activity_required_user_info_key_count(
    const handoff_activity *activity);
HANDOFF_API const char *handoff_activity_required_user_info_key_at(
    const handoff_activity *activity, size_t index);
HANDOFF_API int handoff_activity_set_searchable_user_info_keys(handoff_activity *activity,
                                                               const char *const *keys,
                                                               size_t count);
HANDOFF_API size_t handoff_activity_searchable_user_info_key_count(
    const handoff_activity *activity);
HANDOFF_API const char *handoff_activity_searchable_user_info_key_at(
    const handoff_activity *activity, size_t index);

/* A copy of the userInfo as a dictionary value the caller owns (an empty
 * dictionary when none was set), or NULL for NULL. */
HANDOFF_API handoff_value *handoff_activity_copy_user_info(const handoff_activity *activity);

/* Replaces the userInfo with a copy of `dictionary` (NULL empties it).
 * HANDOFF_E_TYPE_MISMATCH when it is not a dictionary;
 * HANDOFF_E_INVALID_VALUE when it breaks a userInfo rule. On failure
 * nothing changes. */
HANDOFF_API int handoff_activity_set_user_info(handoff_activity *activity,
                                               const handoff_value *dictionary);

/* Merges the entries of `dictionary` into the userInfo (Apple:
 * addUserInfoEntries); an existing key takes the new value. Errors as
 * handoff_activity_set_user_info. */
HANDOFF_API int handoff_activity_add_user_info_entries(handoff_activity *activity,
                                                       const handoff_value *dictionary);

/* The size in bytes of the encoded userInfo, the figure
 * HANDOFF_USER_INFO_BUDGET limits. 0 for NULL. */
HANDOFF_API size_t handoff_activity_user_info_size(const handoff_activity *activity);

/* Encodes the activity as the payload another device receives (a binary
 * property list, docs/PROTOCOL.md). On success *bytes receives a buffer the
 * caller releases with handoff_free and *length its size. Errors:
 * HANDOFF_E_INVALID_ARGUMENT, HANDOFF_E_MISSING_REQUIRED_KEY (a required
 * userInfo key is absent), HANDOFF_E_USER_INFO_TOO_LARGE (encoded userInfo
 * over HANDOFF_USER_INFO_BUDGET bytes). */
HANDOFF_API int handoff_activity_encode(const handoff_activity *activity, uint8_t **bytes,
                                        size_t *length);

/* Decodes a payload into a new activity the caller owns (it keeps the
 * sender's activity id). NULL with HANDOFF_E_MALFORMED_DATA for bytes that
 * are not a valid payload (hostile input is safe to pass),
 * HANDOFF_E_USER_INFO_TOO_LARGE for a userInfo over budget, or
 * HANDOFF_E_INVALID_ARGUMENT when bytes is NULL. */
HANDOFF_API handoff_activity *handoff_activity_decode(const void *bytes, size_t length);

/* Ends the activity for good (Apple: invalidate): it is withdrawn from
 * other devices and can never become current again. Invalidating twice is
 * harmless. HANDOFF_E_INVALID_ARGUMENT for NULL. Any thread. */
HANDOFF_API int handoff_activity_invalidate(handoff_activity *activity);

/* 1 when the activity was invalidated, else 0 (also for NULL). */
HANDOFF_API int handoff_activity_is_invalidated(const handoff_activity *activity);

/* Callbacks about an activity's life (Apple: NSUserActivityDelegate). Each
 * may be NULL. They run inside handoff_application_dispatch, on the
 * application's main thread, for the application holding the activity;
 * `activity` is lent for the call (handoff_activity_ref to keep it).
 * (0.1.0 named them will_save, was_continued, did_receive_stream and
 * did_fail_to_hand_off: deprecated aliases now, see HANDOFF_RENAMED_FIELD_.)
 *  - user_activity_will_save (Apple: userActivityWillSave): the activity is
 *    being saved, after the responders' update_user_activity_state: last
 *    chance to add state;
 *  - user_activity_was_continued (Apple: userActivityWasContinued): another
 *    device continued it: once per continuation (an activity that stays
 *    current and is continued again hears it again; a duplicate
 *    confirmation of one fetch is ignored);
 *  - user_activity_did_receive_stream (Apple:
 *    userActivity(_:didReceive:outputStream:)): the device that continued
 *    it opened a continuation stream
 *    (handoff_activity_get_continuation_streams there). `fd` is one
 *    connected, bidirectional socket for Apple's stream pair, now the
 *    callee's to close; see "Continuation streams" below. NULL: this app
 *    refuses streams, and the other device's request fails with
 *    HANDOFF_E_HANDOFF_FAILED.
 *  - user_activity_did_fail_to_hand_off: another device fetched the
 *    activity and the fetch failed on this side, so it could not continue
 *    it (no Apple counterpart: there only the receiving side hears of it;
 *    named in Apple's pattern). `error` is
 *    HANDOFF_E_USER_INFO_TOO_LARGE (the encoded userInfo is over
 *    HANDOFF_USER_INFO_BUDGET bytes), HANDOFF_E_MISSING_REQUIRED_KEY (a
 *    required userInfo key is absent; HANDOFF_E_HANDOFF_FAILED on the other
 *    device) or HANDOFF_E_REMOTE_APPLICATION_TIMED_OUT (this app's main
 *    thread did not dispatch in time: fetch_timeout_ms of the continuity
 *    options). `message` says why, as the library's error messages do;
 *    `activity` and `message` are lent for the call. Called once per
 *    failed fetch. Because it runs on the main thread, a timed-out fetch
 *    is reported only when the main thread next dispatches (late, by
 *    nature); a main thread that never dispatches again never hears it.
 *    A fetch that fails in transit, or for an activity no longer current,
 *    is not reported. Informational: nothing to return or release. */
typedef struct handoff_activity_delegate {
    size_t size; /* sizeof(handoff_activity_delegate): use the _INIT macro */
    HANDOFF_RENAMED_FIELD_(
        void (*user_activity_will_save)(handoff_activity *activity, void *user_data),
        void (*will_save)(handoff_activity *, void *)
            HANDOFF_DEPRECATED_("renamed user_activity_will_save"));
    HANDOFF_RENAMED_FIELD_(
        void (*user_activity_was_continued)(handoff_activity *activity, void *user_data),
        void (*was_continued)(handoff_activity *, void *)
            HANDOFF_DEPRECATED_("renamed user_activity_was_continued"));
    HANDOFF_RENAMED_FIELD_(
        void (*user_activity_did_receive_stream)(handoff_activity *activity, int fd,
                                                 void *user_data),
        void (*did_receive_stream)(handoff_activity *, int, void *)
            HANDOFF_DEPRECATED_("renamed user_activity_did_receive_stream"));
    HANDOFF_RENAMED_FIELD_(
        void (*user_activity_did_fail_to_hand_off)(handoff_activity *activity, int error,
                                                   const char *message, void *user_data),
        void (*did_fail_to_hand_off)(handoff_activity *, int, const char *, void *)
            HANDOFF_DEPRECATED_("renamed user_activity_did_fail_to_hand_off"));
} handoff_activity_delegate;

#define HANDOFF_ACTIVITY_DELEGATE_INIT \
    {sizeof(handoff_activity_delegate), {NULL}, {NULL}, {NULL}, {NULL}}

/* Sets the activity's delegate (the struct is copied; NULL removes it).
 * `destroy`, if not NULL, is called with `user_data` when the delegate is
 * replaced or the activity goes away. HANDOFF_E_INVALID_ARGUMENT for a NULL
 * activity or a `size` smaller than the first field's end; on failure
 * `destroy` is not called. Any thread. */
HANDOFF_API int handoff_activity_set_delegate(handoff_activity *activity,
                                              const handoff_activity_delegate *delegate,
                                              void *user_data, void (*destroy)(void *user_data));

/* ------------------------------------------------------------------------ */
/* Continuation streams: more than userInfo can carry                       */
/* ------------------------------------------------------------------------ */

/* A continuation stream connects the app that continued an activity with
 * the app it came from, for data beyond the 3 KB userInfo budget (a
 * document, a draft's attachments). The library carries its bytes over the
 * account's authenticated, encrypted channel; each app sees one end as a
 * connected, bidirectional, pollable stream socket (AF_UNIX), so read(),
 * write(), poll(), shutdown() and close() work as on any socket:
 *  - shutdown(fd, SHUT_WR) ends this side's writing: the other side reads
 *    EOF once it has everything, and may go on writing (a half-close);
 *  - close(fd) ends both directions;
 *  - when the stream is lost (the other device or its app vanishes, or
 *    its application is freed before it half-closed), reads return what
 *    arrived and then fail with ECONNRESET, and writes fail with EPIPE
 *    (use MSG_NOSIGNAL or ignore SIGPIPE): a lost stream never reads as a
 *    clean EOF. A peer that vanishes without a word (power, cable) is
 *    noticed within about 30 seconds.
 *  - A writer that outpaces its reader blocks (or gets EAGAIN on a
 *    non-blocking socket): the library holds at most 256 KiB per direction
 *    of a stream; the rest waits in the kernel's socket buffers.
 * The sending app sets HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS on the
 * activity before it is continued (the flag travels with it) and gives the
 * activity a delegate with user_activity_did_receive_stream. */

/* Opens a continuation stream to the device `activity` was continued from
 * (Apple: getContinuationStreams); call it on an activity received in
 * continue_user_activity, then or later. Each call opens another stream.
 * `callback` receives the stream or why there is none: `fd` >= 0 with
 * `error` 0 and `message` NULL, or `fd` -1 with `error` one of 4608..4611
 * (HANDOFF_E_CONNECTION_UNAVAILABLE when the other device cannot be
 * reached, HANDOFF_E_HANDOFF_FAILED when it refuses,
 * HANDOFF_E_REMOTE_APPLICATION_TIMED_OUT when its app does not answer) and
 * `message` saying why; the fd is the callee's to close, `activity` and
 * `message` are lent for the call. It runs exactly once, inside
 * handoff_application_dispatch on the
 * main thread of the application that continued the activity, unless that
 * application is freed first. Returns HANDOFF_OK when the request is on its
 * way; HANDOFF_E_INVALID_ARGUMENT for NULL activity or callback;
 * HANDOFF_E_INVALID_STATE (callback not called) when the activity does not
 * support continuation streams, was invalidated, or was not continued from
 * another device by an application with continuity started. Any thread. */
HANDOFF_API int handoff_activity_get_continuation_streams(
    handoff_activity *activity,
    void (*callback)(handoff_activity *activity, int fd, int error, const char *message,
                     void *user_data),
    void *user_data);

/* ------------------------------------------------------------------------ */
/* Manifests: what an app declares                                          */
/* ------------------------------------------------------------------------ */

/* An app's bundle identifier, team identifier (only apps of one team
 * continue each other's activities) and the activity types it can continue
 * (Apple: NSUserActivityTypes). */
typedef struct handoff_manifest handoff_manifest;

/* A new manifest with no declared types; the caller owns it. NULL with
 * HANDOFF_E_INVALID_ARGUMENT for NULL or HANDOFF_E_INVALID_VALUE when the
 * bundle identifier is not reverse-DNS or the team identifier is not 1 to 32
 * ASCII letters and digits. */
HANDOFF_API handoff_manifest *handoff_manifest_new(const char *bundle_identifier,
                                                   const char *team_identifier);

/* Loads a manifest from the built app's Info.plist file, XML or binary (at
 * most 16 MiB). Keys read, every other key ignored:
 *  - CFBundleIdentifier (required string, reverse-DNS);
 *  - the team: HandoffTeamIdentifier (a string of 1 to 32 ASCII letters and
 *    digits), else AppIdentifierPrefix without its trailing dot. Linux has
 *    no code signature to take it from; an app without either key builds
 *    its manifest with handoff_manifest_new instead;
 *  - NSUserActivityTypes (optional array; any other kind declares no types,
 *    with a warning, as a bad entry is skipped): each string is kept as written
 *    and matched byte for byte, reverse-DNS types, intent class names
 *    ("INSendMessageIntent") and short names ("ReadArticle") alike; an entry
 *    that cannot be a type (not a string, empty, over 255 bytes, control
 *    characters) is skipped, not an error; more than 512 types, or more
 *    than 24,576 bytes of them in all, is HANDOFF_E_MALFORMED_DATA (the
 *    same limits in both continuity modes: what the agent carries);
 *  - CFBundleDocumentTypes (optional array): each entry (a dictionary)
 *    carrying NSUbiquitousDocumentUserActivityType declares that activity
 *    type, as if listed in NSUserActivityTypes (Apple's document-based
 *    Handoff); its LSItemContentTypes, CFBundleTypeExtensions and
 *    CFBundleTypeMIMETypes are kept as what it covers. Entries without the
 *    key are passed over; one that cannot be read is skipped with a
 *    warning; more than 64 such entries is HANDOFF_E_MALFORMED_DATA.
 * Binary plists are read by the library's own reader and XML ones with
 * expat; no input makes either trap. A key repeated in one dictionary keeps
 * its last value, with a warning (Apple's tools and plistlib read it so;
 * payloads on the wire still refuse repeats). The caller owns the result. NULL with
 * HANDOFF_E_IO (unreadable file) or HANDOFF_E_MALFORMED_DATA, whose message
 * starts with the path and names the offset (binary) or line and column
 * (XML) of what is malformed, or the key, what was found and what to do: a
 * value still holding a build variable such as $(PRODUCT_BUNDLE_IDENTIFIER)
 * is reported as a source Info.plist (pass the built one, or write the
 * values out). Any thread. */
HANDOFF_API handoff_manifest *handoff_manifest_load(const char *path);

/* As handoff_manifest_load, from `length` bytes of an Info.plist in memory
 * (copied; the caller keeps them); messages name it "Info.plist". NULL with
 * HANDOFF_E_INVALID_ARGUMENT for NULL bytes with a non-zero length. */
HANDOFF_API handoff_manifest *handoff_manifest_load_data(const void *bytes, size_t length);

/* Releases a manifest. NULL is ignored. */
HANDOFF_API void handoff_manifest_free(handoff_manifest *manifest);

/* Declares an activity type the app can continue (any type handoff_activity_new
 * accepts); declaring one twice is harmless. HANDOFF_E_INVALID_VALUE for a
 * type that is empty, over 255 bytes, not UTF-8 or holds a control character,
 * and for one more than 512 types or 24,576 bytes of types in all. */
HANDOFF_API int handoff_manifest_declare_activity_type(handoff_manifest *manifest,
                                                       const char *activity_type);

/* 1 when the manifest declares the type (compared byte for byte), else 0
 * (also for NULL). */
HANDOFF_API int handoff_manifest_declares(const handoff_manifest *manifest,
                                          const char *activity_type);

/* Identifiers, borrowed until the manifest is freed; NULL for NULL. */
HANDOFF_API const char *handoff_manifest_get_bundle_identifier(const handoff_manifest *manifest);
HANDOFF_API const char *handoff_manifest_get_team_identifier(const handoff_manifest *manifest);

/* The declared types in declaration order: the count, and the type at an
 * index (NULL when out of range), borrowed until the manifest is changed or
 * freed. */
HANDOFF_API size_t handoff_manifest_activity_type_count(const handoff_manifest *manifest);
HANDOFF_API const char *handoff_manifest_activity_type_at(const handoff_manifest *manifest,
                                                          size_t index);

/* Claims a web domain the app opens (Apple's associated domains): a host
 * name ("example.com": that host only) or "*." before one
 * ("*.example.com": every host under it, not example.com itself); stored
 * in lowercase; claiming one twice is harmless. An activity of type
 * "NSUserActivityTypeBrowsingWeb" (a browser's page, e.g. from the
 * browser bridge) whose http(s) page is on a claimed domain is then
 * offered to the app as continuable, whatever its team: the app gets
 * will_continue and continue_user_activity with that type, the page in
 * handoff_activity_get_webpage_url. The person may turn this off per app
 * (`handoff settings app BUNDLE web-domains off`). HANDOFF_E_INVALID_VALUE
 * for anything but a host name (a scheme, path or port written in, an
 * empty or over-63-byte label, over 253 bytes, a star elsewhere) and for
 * one more than 32 domains; HANDOFF_E_INVALID_ARGUMENT for NULL. Any
 * thread; give the manifest to handoff_application_new after claiming. */
HANDOFF_API int handoff_manifest_declare_web_domain(handoff_manifest *manifest,
                                                    const char *domain);

/* The claimed web domains in claim order, written as claimed but in
 * lowercase ("*.example.com"): the count (0 for NULL), and the domain at an
 * index (NULL when out of range), borrowed until the manifest is changed or
 * freed. */
HANDOFF_API size_t handoff_manifest_web_domain_count(const handoff_manifest *manifest);
HANDOFF_API const char *handoff_manifest_web_domain_at(const handoff_manifest *manifest,
                                                       size_t index);

/* What loading the Info.plist skipped and why: first one warning per key
 * repeated in one dictionary, in file order (the last value is used, as
 * Apple's tools and plistlib read it; at most 16 listed, then a count),
 * then one when NSUserActivityTypes is not an array (no types are
 * declared), else one per entry that cannot be a type (not a string, empty,
 * over 255 bytes, control characters), naming the file, the entry and what
 * was found, e.g. "Info.plist: NSUserActivityTypes[1] is an integer (7),
 * not a string: skipped". None for a manifest made with handoff_manifest_new;
 * declaring types never adds any. The count (0 for NULL), and the warning at
 * an index, borrowed until the manifest is freed (its warnings never
 * change): NULL with HANDOFF_E_INVALID_ARGUMENT for a NULL manifest, and
 * NULL for an index out of range (no error recorded, as for
 * handoff_manifest_activity_type_at).
 * Any thread. */
HANDOFF_API size_t handoff_manifest_warning_count(const handoff_manifest *manifest);
HANDOFF_API const char *handoff_manifest_warning_at(const handoff_manifest *manifest,
                                                    size_t index);

/* ------------------------------------------------------------------------ */
/* Applications: the app's side of Handoff, and its main loop               */
/* ------------------------------------------------------------------------ */

/* One per host process (Apple: the application and its delegate). It holds
 * the manifest, the current activity and the responders, and runs every
 * callback only inside handoff_application_dispatch, on the thread that
 * created it: the application's *main thread*. The library's own threads
 * queue callbacks; the host learns of them through a pollable fd:
 *
 *     struct pollfd p = { handoff_application_get_fd(app), POLLIN, 0 };
 *     for (;;) {
 *         poll(&p, 1, -1);
 *         handoff_application_dispatch(app);
 *     }
 *
 * The fd alone is enough: a due timer makes it readable too, so no loop
 * needs a timeout of its own (see handoff_application_get_fd). Add it to
 * GLib (handoff-glib.h, installed next to this header, or g_unix_fd_add),
 * asyncio (loop.add_reader), Qt (QSocketNotifier: examples/qt) or epoll.
 * Simple programs call handoff_application_run.
 * No callback runs while the library holds a lock: callbacks may call any
 * function here, except dispatch and run themselves. */
typedef struct handoff_application handoff_application;

/* An object whose state an activity captures and restores (Apple:
 * UIResponder's userActivity support). */
typedef struct handoff_responder handoff_responder;

/* Hands a continued activity to the responders that restore it. */
typedef struct handoff_restoration_handler handoff_restoration_handler;

/* An activity another device of the account offers, lent to the
 * availability callbacks (see handoff_application_delegate). */
typedef struct handoff_remote_activity handoff_remote_activity;

/* The application's Handoff callbacks; each may be NULL. All run inside
 * handoff_application_dispatch on the main thread. Strings and handles
 * passed in are lent for the call. For each will_continue_user_activity,
 * exactly one of continue_user_activity or
 * did_fail_to_continue_user_activity follows. (0.1.0 named the first four
 * will_continue, continue_activity, did_fail_to_continue and did_update:
 * deprecated aliases now, see HANDOFF_RENAMED_FIELD_.)
 *  - will_continue_user_activity (Apple:
 *    application(_:willContinueUserActivityWithType:)): the person chose to
 *    continue an activity of this type and its payload is on its way.
 *    Return non-zero if the app shows its own progress. NULL: 0.
 *  - continue_user_activity (Apple:
 *    application(_:continue:restorationHandler:)): the activity arrived.
 *    `handler` is the callee's: call handoff_restoration_handler_restore
 *    with the responders to restore (now or later, at most once, on the
 *    main thread) and release it with handoff_restoration_handler_free
 *    either way. Return non-zero if the app handled the activity; the
 *    sender then hears it was continued. NULL: 0, and the handler is
 *    released for you.
 *  - did_fail_to_continue_user_activity (Apple:
 *    application(_:didFailToContinueUserActivityWithType:error:)): the
 *    activity could not be continued; `error` is one of 4608..4611 and
 *    `message` says why.
 *  - did_update_user_activity (Apple: application(_:didUpdate:)): a save
 *    updated an activity the app holds.
 *  - activity_available / activity_updated / activity_withdrawn: another
 *    device of the account offers an activity this app can continue (or,
 *    when handoff_remote_activity_is_web_only, open as a web page), its
 *    details changed, or it is gone: show or hide a Handoff indicator, and
 *    continue it with handoff_application_continue. (No Apple counterpart:
 *    there the system shows the indicator.)
 *  - open_webpage: the person continued a web-only activity. NULL: the
 *    library runs `xdg-open URL` when xdg-open is installed. (Apple: the
 *    system opens the browser.) */
typedef struct handoff_application_delegate {
    size_t size; /* sizeof(handoff_application_delegate): use the _INIT macro */
    HANDOFF_RENAMED_FIELD_(
        int (*will_continue_user_activity)(handoff_application *app, const char *activity_type,
                                           void *user_data),
        int (*will_continue)(handoff_application *, const char *, void *)
            HANDOFF_DEPRECATED_("renamed will_continue_user_activity"));
    HANDOFF_RENAMED_FIELD_(
        int (*continue_user_activity)(handoff_application *app, handoff_activity *activity,
                                      handoff_restoration_handler *handler, void *user_data),
        int (*continue_activity)(handoff_application *, handoff_activity *,
                                 handoff_restoration_handler *, void *)
            HANDOFF_DEPRECATED_("renamed continue_user_activity"));
    HANDOFF_RENAMED_FIELD_(
        void (*did_fail_to_continue_user_activity)(handoff_application *app,
                                                   const char *activity_type, int error,
                                                   const char *message, void *user_data),
        void (*did_fail_to_continue)(handoff_application *, const char *, int, const char *,
                                     void *)
            HANDOFF_DEPRECATED_("renamed did_fail_to_continue_user_activity"));
    HANDOFF_RENAMED_FIELD_(
        void (*did_update_user_activity)(handoff_application *app, handoff_activity *activity,
                                         void *user_data),
        void (*did_update)(handoff_application *, handoff_activity *, void *)
            HANDOFF_DEPRECATED_("renamed did_update_user_activity"));
    void (*activity_available)(handoff_application *app, const handoff_remote_activity *remote,
                               void *user_data);
    void (*activity_updated)(handoff_application *app, const handoff_remote_activity *remote,
                             void *user_data);
    void (*activity_withdrawn)(handoff_application *app, const handoff_remote_activity *remote,
                               void *user_data);
    void (*open_webpage)(handoff_application *app, const char *url,
                         const handoff_remote_activity *remote, void *user_data);
} handoff_application_delegate;

#define HANDOFF_APPLICATION_DELEGATE_INIT \
    {sizeof(handoff_application_delegate), {NULL}, {NULL}, {NULL}, {NULL}, NULL, NULL, NULL, NULL}

/* Creates the application on the calling thread, which becomes its main
 * thread. The manifest is copied; the delegate struct is copied (NULL: no
 * callbacks). `destroy`, if not NULL, is called with `user_data` when the
 * application is freed. The caller owns the result. NULL with
 * HANDOFF_E_INVALID_ARGUMENT (NULL manifest, delegate size too small) or
 * HANDOFF_E_IO (no file descriptors left); then `destroy` is not called.
 * Until handoff_application_start_continuity, nothing is advertised and no
 * other device's activity is reported, so handoff_application_continue
 * fails with HANDOFF_E_NOT_FOUND. */
HANDOFF_API handoff_application *handoff_application_new(const handoff_manifest *manifest,
                                                         const handoff_application_delegate *delegate,
                                                         void *user_data,
                                                         void (*destroy)(void *user_data));

/* Releases the application: it withdraws what it advertised, drops queued
 * callbacks and ends its continuation streams, after they have sent what
 * their hosts wrote before this call (it waits up to 3 seconds for a slow
 * reader on the other device). Half-close (shutdown(fd, SHUT_WR)) or close
 * a stream first to end it cleanly: a stream still open for writing is
 * lost, and the other side's reads fail with ECONNRESET. NULL is ignored.
 * Call it on the main thread, not from inside one of its callbacks. A process that exits
 * without it may lose stream data the library has not sent yet. In agent
 * mode (handoff_continuity_mode) the agent carries the streams: they end
 * when their hosts close them, not here. */
HANDOFF_API void handoff_application_free(handoff_application *app);

/* The pollable file descriptor: readable exactly while callbacks are queued
 * or a timer is due, and so enough on its own: a main loop that watches it
 * for readability and calls handoff_application_dispatch when it is
 * readable, with no timeout, misses nothing (the library's timers are a
 * timerfd inside it: the fd is an epoll set of an eventfd and a timerfd).
 * Watch it level-triggered, as poll, select, GLib, Qt and epoll without
 * EPOLLET do: it stays readable until dispatch has run the work. Owned by
 * the application: never close or read it. -1 for NULL. Any thread. */
HANDOFF_API int handoff_application_get_fd(const handoff_application *app);

/* Milliseconds until dispatch has work: 0 when callbacks are queued or a
 * timer is due, -1 when nothing is scheduled; usable as a poll() timeout.
 * Never needed to wait on the fd (a due timer makes it readable); for a
 * loop that wants to know ahead, e.g. to sleep no longer than that. -1 for
 * NULL. Any thread. */
HANDOFF_API int handoff_application_next_timeout(const handoff_application *app);

/* Runs the callbacks queued and the timers due, in order, on the calling
 * thread; callbacks queued meanwhile wait for the next call. Returns
 * HANDOFF_OK, HANDOFF_E_WRONG_THREAD off the main thread (nothing runs), or
 * HANDOFF_E_INVALID_STATE when called from inside a callback. */
HANDOFF_API int handoff_application_dispatch(handoff_application *app);

/* Polls and dispatches on the main thread until handoff_application_stop
 * or until `timeout_ms` pass (negative: no limit). Returns HANDOFF_OK when
 * stopped, HANDOFF_E_TIMED_OUT when the time ran out, or dispatch's errors. */
HANDOFF_API int handoff_application_run(handoff_application *app, int timeout_ms);

/* Ends a running handoff_application_run; a stop asked for while none runs
 * ends the next one at once. Any thread, including callbacks. */
HANDOFF_API int handoff_application_stop(handoff_application *app);

/* Makes `activity` the current one (Apple: becomeCurrent): offered to the
 * person's other devices while eligible for Handoff and not expired; any
 * previous current activity stops being offered. The application keeps a
 * reference. HANDOFF_E_INVALID_STATE for an invalidated activity. Any
 * thread. */
HANDOFF_API int handoff_application_become_current(handoff_application *app,
                                                   handoff_activity *activity);

/* Stops offering `activity` if it is current (Apple: resignCurrent);
 * otherwise does nothing. Any thread. */
HANDOFF_API int handoff_application_resign_current(handoff_application *app,
                                                   handoff_activity *activity);

/* A new reference to the current activity (release it with
 * handoff_activity_free), or NULL with HANDOFF_E_NOT_FOUND when there is
 * none. Any thread. */
HANDOFF_API handoff_activity *handoff_application_copy_current_activity(
    const handoff_application *app);

/* Continues the activity `activity_id` (handoff_remote_activity_get_id)
 * that another device offers: will_continue_user_activity follows at the
 * next dispatch, then exactly one of continue_user_activity or
 * did_fail_to_continue_user_activity; for a
 * web-only activity, open_webpage instead. HANDOFF_E_NOT_FOUND when no
 * device offers it (any more); HANDOFF_E_INVALID_VALUE for a malformed id.
 * Any thread. */
HANDOFF_API int handoff_application_continue(handoff_application *app, const char *activity_id);

/* The activation token of the continuation whose callback runs now, or
 * NULL. When the person chose the activity outside the app (the agent's
 * notification; docs/agent.md §3, CONTINUE) and the notification server
 * gave a token for that click, the agent passes it to the app; read it
 * during will_continue_user_activity, continue_user_activity,
 * did_fail_to_continue_user_activity or open_webpage to raise the app's
 * window where the compositor asks for proof of a person's action:
 * Wayland xdg-activation (GTK 3: gtk_window_set_startup_id, then
 * gtk_window_present; GTK 4: gdk_wayland_display_set_startup_notification_id
 * on the window's display, then gtk_window_present, since GTK 4.8 ignores
 * gtk_window_set_startup_id on a window already shown; Qt: put it in
 * XDG_ACTIVATION_TOKEN, then QWindow::requestActivate) or X11
 * startup notification (DESKTOP_STARTUP_ID). README, "Raising your
 * window". NULL at any other time, for a continuation the app started
 * itself (handoff_application_continue), in embedded mode, with an agent
 * too old to send one, or when the server gave none; an app the agent
 * launched to continue finds the token in its environment
 * (XDG_ACTIVATION_TOKEN) instead. The string is lent: valid until the
 * callback returns (copy it to keep it); 1..256 bytes, no control
 * characters. A token is good for one activation. Call it on the main
 * thread, inside the callback; NULL for a NULL app (no error is set). */
HANDOFF_API const char *handoff_application_get_activation_token(const handoff_application *app);

/* Deletes this app's saved activities with these persistent identifiers
 * from the device's history (Apple's
 * deleteSavedUserActivities(withPersistentIdentifiers:); docs/history.md):
 * the entries of the app's team with those identifiers. The history is the
 * agent's: without one (embedded mode, continuity not started, an agent of
 * an older release) `done` hears HANDOFF_E_CONNECTION_UNAVAILABLE and
 * nothing is deleted. `ids` (count strings of 1..4096 bytes, at most 512)
 * is copied; count 0 completes at once with HANDOFF_OK. `done(context,
 * status)` runs exactly once, on the main thread (in
 * handoff_application_dispatch), after the agent committed the deletion,
 * with HANDOFF_OK or the error (handoff_last_error_message() says why
 * during the call); it may be NULL. Returns HANDOFF_OK when the request is made (then `done`
 * follows), else HANDOFF_E_INVALID_ARGUMENT (NULL app, NULL ids with a
 * count, an identifier empty or too long, more than 512) and `done` is not
 * called. Any thread. */
HANDOFF_API int handoff_application_delete_saved_activities(handoff_application *app,
                                                            const char *const *ids, size_t count,
                                                            void (*done)(void *context, int status),
                                                            void *context);

/* Deletes every saved activity of this app (its bundle) from the device's
 * history (Apple's deleteAllSavedUserActivities), as above. */
HANDOFF_API int handoff_application_delete_all_saved_activities(handoff_application *app,
                                                                void (*done)(void *context, int status),
                                                                void *context);

/* ------------------------------------------------------------------------ */
/* Remote activities: what other devices offer                              */
/* ------------------------------------------------------------------------ */

/* Readers for a remote activity lent to a callback. Strings are borrowed
 * for the callback's duration; NULL for an absent optional (title, URL) or
 * a NULL handle. Any thread that holds the handle, i.e. the main thread. */
HANDOFF_API const char *handoff_remote_activity_get_id(const handoff_remote_activity *remote);
HANDOFF_API const char *handoff_remote_activity_get_type(const handoff_remote_activity *remote);
HANDOFF_API const char *handoff_remote_activity_get_title(const handoff_remote_activity *remote);
HANDOFF_API const char *handoff_remote_activity_get_webpage_url(
    const handoff_remote_activity *remote);
HANDOFF_API const char *handoff_remote_activity_get_device_name(
    const handoff_remote_activity *remote);
HANDOFF_API const char *handoff_remote_activity_get_device_id(const handoff_remote_activity *remote);
/* Seconds since this device first saw the activity offered; 0 for NULL. */
HANDOFF_API double handoff_remote_activity_get_age(const handoff_remote_activity *remote);
/* 1 when no app here can continue it but its web page can be opened. */
HANDOFF_API int handoff_remote_activity_is_web_only(const handoff_remote_activity *remote);
/* 1 when its app accepts continuation streams. */
HANDOFF_API int handoff_remote_activity_supports_continuation_streams(
    const handoff_remote_activity *remote);

/* ------------------------------------------------------------------------ */
/* Accounts and continuity between devices                                  */
/* ------------------------------------------------------------------------ */

/* The account a person's devices share (Apple: the iCloud account's Handoff
 * keys): a 256-bit key from which beacon and channel keys are derived. Only
 * devices holding the same account see and continue each other's
 * activities. */
typedef struct handoff_account handoff_account;

/* A new account with a fresh random key. The caller owns it. */
HANDOFF_API handoff_account *handoff_account_new(void);

/* The account of a pairing code (handoff_account_copy_pairing_code on
 * another device). Case, dashes and spaces do not matter; O reads as 0,
 * I and L as 1. NULL with HANDOFF_E_INVALID_VALUE and a message that says
 * what is wrong (typo, length, character). */
HANDOFF_API handoff_account *handoff_account_from_pairing_code(const char *code);

/* The account of a raw 32-byte key, for hosts that keep the key themselves
 * (and the demo's embedded default). NULL with HANDOFF_E_INVALID_ARGUMENT
 * unless length is 32. */
HANDOFF_API handoff_account *handoff_account_from_key(const void *key, size_t length);

/* Loads the account stored in `directory` (NULL: $XDG_CONFIG_HOME/handoff,
 * else ~/.config/handoff). NULL with HANDOFF_E_NOT_FOUND (no account yet),
 * HANDOFF_E_PERMISSION (the file is readable by others: chmod 600 it; or
 * the file or its directory is a symbolic link or another user's, or the
 * directory is writable by others: the message says what to do),
 * HANDOFF_E_MALFORMED_DATA or HANDOFF_E_IO. */
HANDOFF_API handoff_account *handoff_account_load(const char *directory);

/* Stores the account in `directory` (NULL: as handoff_account_load), in a
 * file of mode 0600 inside a directory of mode 0700, atomically. An
 * existing directory must pass handoff_account_load's checks
 * (HANDOFF_E_PERMISSION otherwise): nothing is written through a link. */
HANDOFF_API int handoff_account_save(const handoff_account *account, const char *directory);

/* The pairing code, to type or paste on another device: an owned string,
 * release it with handoff_free. It is the secret: show it only to the
 * person. NULL for NULL. */
HANDOFF_API char *handoff_account_copy_pairing_code(const handoff_account *account);

/* A public fingerprint of the account (16 hex digits) to tell accounts
 * apart; reveals nothing of the key. Borrowed until the account is freed. */
HANDOFF_API const char *handoff_account_get_id(const handoff_account *account);

/* Releases an account. NULL is ignored. */
HANDOFF_API void handoff_account_free(handoff_account *account);

/* A device's role: a full device sends and receives; a send-only one
 * (Apple: watchOS) offers its activities but is never offered any. */
typedef enum handoff_device_role {
    HANDOFF_DEVICE_ROLE_FULL = 0,
    HANDOFF_DEVICE_ROLE_SEND_ONLY = 1
} handoff_device_role;

/* Where an application's continuity runs (docs/agent.md §3, "Choosing the
 * mode"):
 *  - AUTO (the default): through the per-user handoff agent when its socket
 *    ($XDG_RUNTIME_DIR/handoff/agent.sock, or $HANDOFF_AGENT_SOCKET) accepts
 *    this user, the agent serves the options' account, and the options name
 *    no device-level setting (device_id, device_name, role SEND_ONLY,
 *    beacon_port, disable_multicast, peers, channel_address: each asks for
 *    an engine of the app's own); otherwise embedded. Deciding costs one
 *    connection attempt; an agent that accepts but does not answer is given
 *    up on after 5 s.
 *  - AGENT: through the agent, or handoff_application_start_continuity
 *    fails (see there).
 *  - EMBEDDED: an engine of the app's own (beacons, channel and threads in
 *    this process), as before the agent existed.
 * Both modes keep the same callbacks, errors and restoration rules. */
typedef enum handoff_continuity_mode {
    HANDOFF_CONTINUITY_MODE_AUTO = 0,
    HANDOFF_CONTINUITY_MODE_AGENT = 1,
    HANDOFF_CONTINUITY_MODE_EMBEDDED = 2
} handoff_continuity_mode;

/* How an application reaches the account's other devices. Start from
 * HANDOFF_CONTINUITY_OPTIONS_INIT; zero fields take the defaults. */
typedef struct handoff_continuity_options {
    size_t size; /* sizeof(handoff_continuity_options): use the _INIT macro */
    /* Required. Copied: the caller may free it afterwards. */
    const handoff_account *account;
    /* 32 hex digits identifying this device. NULL (the usual choice): the
     * person's device identity, the one `handoff device` shows and names:
     * the file "device" (lines id=, name=, role=; mode 0600) in the account
     * directory ($XDG_CONFIG_HOME/handoff, else ~/.config/handoff), created
     * with a random id and a default name on first use (the pretty host
     * name, else "<person>'s <chassis>", docs/PROTOCOL.md §4; when processes race
     * to create it, the first one's file wins and all use it). Every app of
     * the person on this host is then one device: apps of one device do not
     * hand off to each other, so two processes that must see each other on
     * one host (tests, demos) each need their own device_id, or their own
     * XDG_CONFIG_HOME. */
    const char *device_id;
    /* Shown on the other devices; NULL: the device file's name when
     * device_id is NULL, else the host name. */
    const char *device_name;
    /* HANDOFF_DEVICE_ROLE_FULL (0, the default): the device file's role when
     * device_id is NULL, else full. HANDOFF_DEVICE_ROLE_SEND_ONLY: send-only
     * whatever the file says. */
    handoff_device_role role;
    /* UDP port of the discovery beacons; 0: 52370. Each process on one host
     * needs its own port to receive unicast beacons. */
    int beacon_port;
    /* Non-zero: no multicast, only the unicast peers below. */
    int disable_multicast;
    /* Unicast peers that also get every beacon: "host:port" strings, IPv4
     * ("127.0.0.1:52371"), IPv6 ("[::1]:52371", "[fe80::1%eth0]:52371") or
     * a host name ("ada.local:52370"), resolved off the app's threads when
     * the engine starts and every 60 s (one that does not resolve is
     * skipped until it does). With a beacon port of its own, the engine
     * also beacons to the person's online tailnet devices that tailscaled
     * lists (HANDOFF_TAILNET_SOCKET names its socket, "off" none;
     * docs/PROTOCOL.md "Peer sources"). */
    const char *const *peers;
    size_t peer_count;
    /* Address the TLS channel listens on, "host:port"; NULL: "[::]:0"
     * (every IPv6 and IPv4 address on one port, IPv4 alone on a host
     * without IPv6; a free port, announced in the beacons). */
    const char *channel_address;
    /* Time the app's main thread has to hand over an activity before the
     * receiver gets HANDOFF_E_REMOTE_APPLICATION_TIMED_OUT; 0: 5000 ms. */
    int fetch_timeout_ms;
    /* Time to connect to a device (TCP), and as much again to authenticate
     * it (the TLS handshake); 0: 3000 ms each. */
    int connect_timeout_ms;
    /* How long an idle authenticated connection to a device is kept for the
     * next handoff (which then skips the handshake); 0: 10000 ms; negative:
     * never kept, every handoff connects afresh. A connection the device
     * closed is dropped at once whatever this says. In agent mode the
     * agent keeps the connections: ignored. */
    int connection_reuse_ms;
    /* HANDOFF_CONTINUITY_MODE_AUTO (0, the default), _AGENT or _EMBEDDED.
     * A caller built against an older header, whose `size` ends before
     * this field, gets AUTO. AUTO without a device-level option (device_id,
     * device_name, role SEND_ONLY, beacon_port, disable_multicast, peers,
     * channel_address) follows the agent: the app moves to it when it
     * starts and back to its own engine when it stops, by itself (a fetch
     * in flight then fails with HANDOFF_E_CONNECTION_UNAVAILABLE). In agent mode fetch_timeout_ms is how long
     * this app's main thread has to hand over an activity, and a fetch
     * waits for the agent fetch_timeout_ms + connect_timeout_ms + 3 s. */
    handoff_continuity_mode mode;
} handoff_continuity_options;

#define HANDOFF_CONTINUITY_OPTIONS_INIT \
    {sizeof(handoff_continuity_options), NULL, NULL, NULL, HANDOFF_DEVICE_ROLE_FULL, 0, 0, NULL, 0, NULL, 0, 0, 0, \
     HANDOFF_CONTINUITY_MODE_AUTO}

/* Starts Handoff between devices for `app`: beacons announce its current
 * activity to the account's other devices, a TLS 1.3 channel answers their
 * fetches, and what they offer arrives as activity_available callbacks;
 * in agent mode the agent does this for the app, over its local socket
 * (one connection and one library thread in the app; if the agent
 * restarts, the app reconnects by itself: requests in flight fail with
 * HANDOFF_E_CONNECTION_UNAVAILABLE and what the agent had reported is
 * withdrawn, then announced again). options.mode chooses (see
 * handoff_continuity_mode).
 * Once per application; the library's threads run until the application is
 * freed. Errors: HANDOFF_E_INVALID_ARGUMENT (no account, bad size, a
 * malformed peer or address, an unknown mode, a device-level setting with
 * mode AGENT), HANDOFF_E_CONNECTION_UNAVAILABLE (mode AGENT: no agent
 * serves this user at the socket; the message names the socket and says
 * why), HANDOFF_E_INVALID_STATE (mode AGENT: the agent serves another
 * account), HANDOFF_E_INVALID_VALUE (a device id that is
 * not 32 lowercase hex digits, an invalid device name), HANDOFF_E_IO (a
 * socket could not be opened), HANDOFF_E_INVALID_STATE (already started).
 * Without a device_id, the device file's errors too: HANDOFF_E_PERMISSION
 * (the file or the account directory is a symbolic link, another user's,
 * or open to others), HANDOFF_E_MALFORMED_DATA (not a device file),
 * HANDOFF_E_IO, and HANDOFF_E_INVALID_STATE when neither XDG_CONFIG_HOME
 * nor HOME is set; each message says what to do. Any thread. */
HANDOFF_API int handoff_application_start_continuity(handoff_application *app,
                                                     const handoff_continuity_options *options);

/* Writes to *out where `app`'s continuity runs now:
 * HANDOFF_CONTINUITY_MODE_AGENT or HANDOFF_CONTINUITY_MODE_EMBEDDED (never
 * AUTO: what AUTO chose), and returns HANDOFF_OK. In AUTO mode (without a
 * device-level option) the answer changes as the app follows the agent:
 * AGENT once an agent that serves this account starts, EMBEDDED again once
 * it stops (docs/agent.md §3 "Choosing the mode"). HANDOFF_E_INVALID_ARGUMENT (NULL app or out) or
 * HANDOFF_E_INVALID_STATE (continuity not started) leave *out alone. Any
 * thread. */
HANDOFF_API int handoff_application_get_continuity_mode(const handoff_application *app,
                                                        handoff_continuity_mode *out);

/* ------------------------------------------------------------------------ */
/* Responders and restoration                                               */
/* ------------------------------------------------------------------------ */

/* A responder's callbacks; each may be NULL. Both run on the main thread
 * inside dispatch; `activity` is lent for the call.
 *  - update_user_activity_state: the activity is being saved; add this
 *    responder's state (e.g. handoff_activity_add_user_info_entries);
 *  - restore_user_activity_state: restore this responder's state from a
 *    continued activity. */
typedef struct handoff_responder_callbacks {
    size_t size; /* sizeof(handoff_responder_callbacks): use the _INIT macro */
    void (*update_user_activity_state)(handoff_responder *responder, handoff_activity *activity,
                                       void *user_data);
    void (*restore_user_activity_state)(handoff_responder *responder, handoff_activity *activity,
                                        void *user_data);
} handoff_responder_callbacks;

#define HANDOFF_RESPONDER_CALLBACKS_INIT {sizeof(handoff_responder_callbacks), NULL, NULL}

/* Creates a responder registered with `app` (the callbacks struct is
 * copied). When an activity it holds is saved, responders are asked to
 * update in the order they were created. `destroy`, if not NULL, is called
 * with `user_data` when the responder is freed. The caller owns the result.
 * NULL with HANDOFF_E_INVALID_ARGUMENT (NULL app or callbacks, size too
 * small); then `destroy` is not called. Any thread. */
HANDOFF_API handoff_responder *handoff_responder_new(handoff_application *app,
                                                     const handoff_responder_callbacks *callbacks,
                                                     void *user_data,
                                                     void (*destroy)(void *user_data));

/* Unregisters and releases a responder. NULL is ignored. Not from inside
 * one of its own callbacks. */
HANDOFF_API void handoff_responder_free(handoff_responder *responder);

/* Sets the activity this responder contributes to (NULL: none). Several
 * responders may share one; a responder may switch. The responder keeps a
 * reference. HANDOFF_E_INVALID_ARGUMENT for a NULL responder. Any thread. */
HANDOFF_API int handoff_responder_set_user_activity(handoff_responder *responder,
                                                    handoff_activity *activity);

/* A new reference to the responder's activity (release it with
 * handoff_activity_free), or NULL with HANDOFF_E_NOT_FOUND when it has
 * none. Any thread. */
HANDOFF_API handoff_activity *handoff_responder_copy_user_activity(
    const handoff_responder *responder);

/* Calls restore_user_activity_state on each of `count` responders, in
 * order, with the continued activity. At most once per handler, on the
 * application's main thread (inside or outside dispatch). Returns
 * HANDOFF_OK; HANDOFF_E_WRONG_THREAD off the main thread or
 * HANDOFF_E_INVALID_STATE on a second call (then nothing is called);
 * HANDOFF_E_INVALID_ARGUMENT for a NULL handler, or NULL responders with
 * count > 0, or a NULL element. */
HANDOFF_API int handoff_restoration_handler_restore(handoff_restoration_handler *handler,
                                                    handoff_responder *const *responders,
                                                    size_t count);

/* Releases a restoration handler, used or not. NULL is ignored. Any thread. */
HANDOFF_API void handoff_restoration_handler_free(handoff_restoration_handler *handler);

/* ------------------------------------------------------------------------ */
/* Documents: the activity of an open file                                  */
/* ------------------------------------------------------------------------ */

/* userInfo keys of documents (docs/documents.md section 6):
 *  - HANDOFF_DOCUMENT_URL_KEY (Apple: NSUserActivityDocumentURLKey): the
 *    document's file: URL, as handoff_document_new puts it;
 *  - HANDOFF_DOCUMENT_ORIGINS_KEY: in an activity continued here, a
 *    dictionary from each local file: URL's text to "same" (the file was
 *    already here), "synced" (a sync service brought it while the
 *    continuation waited) or "brought" (the other device sent it), added by
 *    the receiving side. */
#define HANDOFF_DOCUMENT_URL_KEY "NSUserActivityDocumentURLKey"
#define HANDOFF_DOCUMENT_ORIGINS_KEY "HandoffDocumentOrigins"

/* An open document and its activity (Apple: NSDocument's userActivity). */
typedef struct handoff_document handoff_document;

/* Opens the document at `path` (absolute, or relative to the working
 * directory) for `app`: a new activity of `activity_type` whose userInfo
 * holds the file's file: URL under HANDOFF_DOCUMENT_URL_KEY, titled with
 * the file's name, made current (handoff_application_become_current). The
 * document follows its file: renamed, the URL and title follow; saved by
 * replacement (a temporary file renamed over the path, as GTK, LibreOffice
 * and vim save), the new file at the path is followed; written in place,
 * an offer encoded before is dropped so the next fetch sees the file as it
 * is. Deleted with nothing in its place, the activity is resigned current
 * until a file is back at its path (then current again). Each change is
 * made inside handoff_application_dispatch, on the application's main
 * thread, woken by the application fd (an inotify descriptor joins it; no
 * thread is started, nothing polls); a host that never dispatches never
 * sees one. The caller owns the result: release it with
 * handoff_document_free. NULL with HANDOFF_E_INVALID_ARGUMENT (NULL
 * argument), HANDOFF_E_INVALID_VALUE (a type handoff_activity_new refuses,
 * an empty path, not a regular file), HANDOFF_E_NOT_FOUND (nothing at
 * `path`) or HANDOFF_E_IO (it cannot be opened or watched). Any thread. */
HANDOFF_API handoff_document *handoff_document_new(handoff_application *app,
                                                   const char *activity_type, const char *path);

/* The person changed the document (Apple: updateChangeCount): sets
 * HANDOFF_ACTIVITY_NEEDS_SAVE, so the responders' and the delegate's save
 * callbacks run before the activity is next sent.
 * HANDOFF_E_INVALID_ARGUMENT for NULL. Any thread. */
HANDOFF_API int handoff_document_edited(handoff_document *document);

/* The app saved the document: clears HANDOFF_ACTIVITY_NEEDS_SAVE and looks
 * at the file again, so a save by replacement the app just made is
 * followed before this returns (on the main thread; from another thread,
 * at the next dispatch). HANDOFF_E_INVALID_ARGUMENT for NULL. Any thread. */
HANDOFF_API int handoff_document_saved(handoff_document *document);

/* The document's activity: borrowed, valid until handoff_document_free
 * (handoff_activity_ref to keep it longer). Set its delegate, add userInfo
 * entries (a cursor position) or its flags as for any activity; leave
 * HANDOFF_DOCUMENT_URL_KEY and the title to the document. NULL for NULL. */
HANDOFF_API handoff_activity *handoff_document_activity(const handoff_document *document);

/* Stops following the file, invalidates the activity (it is withdrawn from
 * other devices) and releases the document. NULL is ignored. Any thread. */
HANDOFF_API void handoff_document_free(handoff_document *document);

/* The path the app may open for a file: URL it received, e.g. under
 * HANDOFF_DOCUMENT_URL_KEY in a continued activity (Apple:
 * startAccessingSecurityScopedResource). Outside a Flatpak sandbox the app
 * reads the person's files as they are: *path receives the URL's own path,
 * percent-decoded, and nothing else happens (a documented no-op). Inside
 * one (/.flatpak-info exists) the agent adds the file to the document
 * portal for this app and *path receives the path inside the sandbox
 * ($XDG_RUNTIME_DIR/doc/DOCID/NAME); it blocks until the agent answers
 * (within the app's request timeout). The agent does so only for a
 * document it delivered to this app in a continued activity, and only to
 * the app Flatpak installed under this app's ID (its exported desktop
 * entry declares the bundle, team and types the app announced):
 * HANDOFF_E_PERMISSION otherwise. HANDOFF_E_INVALID_STATE when
 * continuity is not started in agent mode (an embedded engine cannot
 * reach the portal from inside the sandbox; the message says what to do)
 * or the agent cannot tell the app's Flatpak ID; HANDOFF_E_IO when the
 * document portal is absent or fails; HANDOFF_E_NOT_FOUND when the file
 * is gone or a link now lies on its path. On success *path receives an owned string, release it with
 * handoff_free. HANDOFF_E_INVALID_ARGUMENT for a NULL argument or anything
 * but a file: URL of an absolute local path (no host but localhost, no
 * query or fragment); on any error *path is left alone. Balance each
 * success with handoff_url_stop_accessing. Any thread. */
HANDOFF_API int handoff_url_start_accessing(handoff_application *app, const char *url,
                                            char **path);

/* Ends what handoff_url_start_accessing began (Apple:
 * stopAccessingSecurityScopedResource). Outside a sandbox there is nothing
 * to end: HANDOFF_OK. Inside one the agent counts the starts of each URL
 * and, at the last stop, takes the app's access to the document back
 * (the path stops opening); it blocks until the agent answers.
 * HANDOFF_E_INVALID_STATE for a URL not being accessed, or without an
 * agent; HANDOFF_E_INVALID_ARGUMENT as handoff_url_start_accessing.
 * Any thread. */
HANDOFF_API int handoff_url_stop_accessing(handoff_application *app, const char *url);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HANDOFF_H */
