/* SPDX-License-Identifier: MIT OR Apache-2.0 */
// header_cxx.cpp - proves include/handoff.h compiles (and links) as C++.
//
//   g++ -std=c++17 -Wall -Wextra -Werror -pedantic -I include -c Tests/c/header_cxx.cpp
//
// Linked against libhandoff it is also a tiny smoke test: it exits 0 when a
// value round trips and the library's version matches the header's.
#include "handoff.h"
#include "handoff.h" // include guard: twice is harmless

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

// The enums are plain C enums usable in C++ contexts.
static_assert(HANDOFF_OK == 0, "HANDOFF_OK");
static_assert(HANDOFF_E_USER_INFO_TOO_LARGE == 4611, "Apple's number");
static_assert(HANDOFF_VERSION_NUMBER ==
              HANDOFF_VERSION_MAJOR * 10000 + HANDOFF_VERSION_MINOR * 100 + HANDOFF_VERSION_PATCH,
              "the version number's formula");
static_assert(sizeof(handoff_status) >= sizeof(char), "complete enum type");

// Function pointer types with C linkage line up with the declarations.
using EncodeFn = int (*)(const handoff_value *, uint8_t **, size_t *);
using DecodeFn = handoff_value *(*)(const void *, size_t);
[[maybe_unused]] const EncodeFn encode_fn = &handoff_value_encode;
[[maybe_unused]] const DecodeFn decode_fn = &handoff_value_decode;

struct ValueDeleter {
    void operator()(handoff_value *v) const noexcept { handoff_value_free(v); }
};

} // namespace

int main() {
    int failures = 0;
    if (handoff_version_number() != HANDOFF_VERSION_NUMBER) failures++;
    if (std::strcmp(handoff_version_string(), HANDOFF_VERSION_STRING) != 0) failures++;
    if (std::strcmp(handoff_status_string(999999), "unknown status") != 0) failures++;

    handoff_value *dict = handoff_value_new_dictionary();
    handoff_value *item = handoff_value_new_integer(INT64_C(42));
    if (handoff_value_dictionary_set(dict, "answer", item) != HANDOFF_OK) failures++;
    handoff_value_free(item);

    std::uint8_t *bytes = nullptr;
    std::size_t length = 0;
    if (handoff_value_encode(dict, &bytes, &length) != HANDOFF_OK) {
        failures++;
    } else {
        handoff_value *back = handoff_value_decode(bytes, length);
        const handoff_value *answer = handoff_value_dictionary_get(back, "answer");
        std::int64_t n = 0;
        if (handoff_value_get_integer(answer, &n) != HANDOFF_OK || n != 42) failures++;
        if (!handoff_value_equal(back, dict)) failures++;
        ValueDeleter{}(back);
        handoff_free(bytes);
    }
    handoff_value_free(dict);

    handoff_activity *activity = handoff_activity_new("com.example.cxx.check");
    if (activity == nullptr) {
        failures++;
    } else {
        int eligible = 0;
        if (handoff_activity_get_flag(activity, HANDOFF_ACTIVITY_ELIGIBLE_FOR_HANDOFF, &eligible) !=
                HANDOFF_OK ||
            eligible != 1)
            failures++;
    }
    handoff_activity_free(activity);

    // The delegate structs in C++: the _INIT macros and Apple's field names.
    handoff_application_delegate app_delegate = HANDOFF_APPLICATION_DELEGATE_INIT;
    app_delegate.will_continue_user_activity = [](handoff_application *, const char *, void *) {
        return 1;
    };
    if (app_delegate.size != sizeof app_delegate || app_delegate.continue_user_activity != nullptr ||
        app_delegate.will_continue_user_activity(nullptr, "t", nullptr) != 1)
        failures++;
    handoff_activity_delegate activity_delegate = HANDOFF_ACTIVITY_DELEGATE_INIT;
    if (activity_delegate.size != sizeof activity_delegate ||
        activity_delegate.user_activity_did_receive_stream != nullptr)
        failures++;

    std::printf("header_cxx: %s\n", failures == 0 ? "ok" : "FAILED");
    return failures == 0 ? 0 : 1;
}
