/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The applications' shared pieces (bench.h). */
#include "bench.h"

#include <stdio.h>

const unsigned char bench_key[32] = {
    0x62, 0x65, 0x6e, 0x63, 0x68, 0x20, 0x6f, 0x6e, 0x6c, 0x79, 0x20, 0x6b, 0x65, 0x79, 0x20, 0x30,
    0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x00,
};

handoff_manifest *bench_manifest(char *why, size_t why_size)
{
    handoff_manifest *m = handoff_manifest_new("com.example.bench", "BENCHTEAM");
    if (!m || handoff_manifest_declare_activity_type(m, ACTIVITY_TYPE) != HANDOFF_OK ||
        handoff_manifest_declare_activity_type(m, BEACON_TYPE) != HANDOFF_OK) {
        snprintf(why, why_size, "manifest: %s", handoff_last_error_message());
        handoff_manifest_free(m);
        return NULL;
    }
    return m;
}

static void put(handoff_value *dict, const char *key, handoff_value *v)
{
    handoff_value_dictionary_set(dict, key, v);
    handoff_value_free(v);
}

handoff_value *bench_user_info(long round)
{
    handoff_value *info = handoff_value_new_dictionary();
    if (!info)
        return NULL;
    put(info, "round", handoff_value_new_integer(round));
    put(info, "latitude", handoff_value_new_real(37.3349));
    put(info, "longitude", handoff_value_new_real(-122.0090));
    put(info, "zoom", handoff_value_new_integer(12));
    put(info, "layer", handoff_value_new_string("standard"));
    return info;
}
