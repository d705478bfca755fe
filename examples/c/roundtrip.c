/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* roundtrip: builds a user activity, encodes it as the payload another
 * device would receive, decodes it and prints both sides.
 *
 *   make demo
 */
#include <handoff.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                          \
    do {                                                                     \
        if ((call) != HANDOFF_OK) {                                          \
            fprintf(stderr, "%s failed: %s\n", #call,                        \
                    handoff_last_error_message());                           \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

static void print_value(const handoff_value *v, int indent);

static void print_activity(const char *label, const handoff_activity *a)
{
    printf("%s\n", label);
    printf("  type:   %s\n", handoff_activity_get_type(a));
    printf("  id:     %s\n", handoff_activity_get_id(a));
    printf("  title:  %s\n", handoff_activity_get_title(a));
    const char *url = handoff_activity_get_webpage_url(a);
    printf("  web:    %s\n", url ? url : "(none)");
    printf("  required keys:");
    for (size_t i = 0; i < handoff_activity_required_user_info_key_count(a); i++)
        printf(" %s", handoff_activity_required_user_info_key_at(a, i));
    printf("\n  userInfo (%zu bytes encoded):\n", handoff_activity_user_info_size(a));
    handoff_value *info = handoff_activity_copy_user_info(a);
    print_value(info, 4);
    handoff_value_free(info);
}

static void print_value(const handoff_value *v, int indent)
{
    switch (handoff_value_get_kind(v)) {
    case HANDOFF_VALUE_DICTIONARY:
        for (size_t i = 0; i < handoff_value_count(v); i++) {
            printf("%*s%s:", indent, "", handoff_value_dictionary_key_at(v, i));
            const handoff_value *child = handoff_value_dictionary_value_at(v, i);
            int k = handoff_value_get_kind(child);
            if (k == HANDOFF_VALUE_DICTIONARY || k == HANDOFF_VALUE_ARRAY) {
                printf("\n");
                print_value(child, indent + 2);
            } else {
                printf(" ");
                print_value(child, 0);
            }
        }
        break;
    case HANDOFF_VALUE_ARRAY:
        for (size_t i = 0; i < handoff_value_count(v); i++) {
            printf("%*s- ", indent, "");
            print_value(handoff_value_array_get(v, i), 0);
        }
        break;
    case HANDOFF_VALUE_REAL: {
        double d = 0;
        handoff_value_get_real(v, &d);
        printf("%.6f\n", d);
        break;
    }
    case HANDOFF_VALUE_INTEGER: {
        int64_t i = 0;
        handoff_value_get_integer(v, &i);
        printf("%" PRId64 "\n", i);
        break;
    }
    case HANDOFF_VALUE_STRING:
        printf("\"%s\"\n", handoff_value_get_string(v, NULL));
        break;
    default:
        printf("(%d)\n", (int)handoff_value_get_kind(v));
    }
}

static void put_real(handoff_value *dict, const char *key, double x)
{
    handoff_value *v = handoff_value_new_real(x);
    CHECK(handoff_value_dictionary_set(dict, key, v));
    handoff_value_free(v);
}

int main(void)
{
    printf("libhandoff %s\n\n", handoff_version_string());

    /* The sender: a map app viewing Cupertino. */
    handoff_activity *sent = handoff_activity_new("com.example.mapoff.view-region");
    if (!sent) {
        fprintf(stderr, "%s\n", handoff_last_error_message());
        return 1;
    }
    CHECK(handoff_activity_set_title(sent, "Cupertino"));
    CHECK(handoff_activity_set_webpage_url(sent, "https://maps.example.com/?ll=37.3349,-122.0090"));

    handoff_value *info = handoff_value_new_dictionary();
    handoff_value *center = handoff_value_new_dictionary();
    put_real(center, "latitude", 37.3349);
    put_real(center, "longitude", -122.0090);
    CHECK(handoff_value_dictionary_set(info, "center", center));
    handoff_value *span = handoff_value_new_dictionary();
    put_real(span, "latitudeDelta", 0.05);
    put_real(span, "longitudeDelta", 0.05);
    CHECK(handoff_value_dictionary_set(info, "span", span));
    handoff_value *version = handoff_value_new_integer(1);
    CHECK(handoff_value_dictionary_set(info, "version", version));
    CHECK(handoff_activity_set_user_info(sent, info));
    const char *required[] = {"center", "span"};
    CHECK(handoff_activity_set_required_user_info_keys(sent, required, 2));
    handoff_value_free(version);
    handoff_value_free(span);
    handoff_value_free(center);
    handoff_value_free(info);

    print_activity("sent:", sent);

    uint8_t *payload = NULL;
    size_t length = 0;
    CHECK(handoff_activity_encode(sent, &payload, &length));
    printf("\npayload: %zu bytes, binary property list\n\n", length);

    handoff_activity *received = handoff_activity_decode(payload, length);
    handoff_free(payload);
    if (!received) {
        fprintf(stderr, "decode failed: %s\n", handoff_last_error_message());
        return 1;
    }
    print_activity("received:", received);

    handoff_activity_free(received);
    handoff_activity_free(sent);
    return 0;
}
