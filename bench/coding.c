/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The model's share: encoding and decoding the payload the continue rows
 * carry, timed on their own. */
#include "bench.h"
#include "report.h"

#include <stdlib.h>

/* The payload's own cost: encode as the sender does after its save, decode
 * as the receiver does before continue_user_activity. */
void measure_coding(void)
{
    handoff_activity *a = handoff_activity_new(ACTIVITY_TYPE);
    handoff_value *info = bench_user_info(123);
    if (!a || !info) {
        handoff_value_free(info);
        handoff_activity_free(a);
        return;
    }
    handoff_activity_set_title(a, "bench viewport");
    handoff_activity_add_user_info_entries(a, info);
    series enc, dec;
    series_init(&enc, 2000);
    series_init(&dec, 2000);
    size_t size = 0;
    for (int i = 0; i < 2100; i++) {
        uint8_t *bytes = NULL;
        size_t length = 0;
        int64_t t0 = now_ns();
        int rc = handoff_activity_encode(a, &bytes, &length);
        int64_t t1 = now_ns();
        handoff_activity *b = rc == HANDOFF_OK ? handoff_activity_decode(bytes, length) : NULL;
        int64_t t2 = now_ns();
        if (b && i >= 100) {
            series_add(&enc, t1 - t0);
            series_add(&dec, t2 - t1);
        }
        size = length;
        handoff_activity_free(b);
        handoff_free(bytes);
    }
    g_encode = series_stats(&enc).p50;
    g_decode = series_stats(&dec).p50;
    extra_printf("  payload coding  handoff_activity_encode %.1f, handoff_activity_decode %.1f "
                 "(%zu-byte payload, userInfo of 5 entries)\n",
                 series_stats(&enc).p50 / 1e3, series_stats(&dec).p50 / 1e3, size);
    free(enc.v), free(dec.v);
    handoff_value_free(info);
    handoff_activity_free(a);
}
