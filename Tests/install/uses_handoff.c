/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A program as its author would write it against the installed library:
 * built with `pkg-config --cflags --libs handoff` and nothing else. It
 * checks the loaded library's version against the header and makes an
 * activity, so it fails unless the dynamic linker found a working
 * libhandoff.so.0. */
#include <handoff.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    handoff_activity *activity;
    if (handoff_version_number() != HANDOFF_VERSION_NUMBER) {
        fprintf(stderr, "header %u, library %u\n", (unsigned)HANDOFF_VERSION_NUMBER, handoff_version_number());
        return 1;
    }
    activity = handoff_activity_new("com.example.installed");
    if (activity == NULL) {
        fprintf(stderr, "no activity: %s\n", handoff_last_error_message());
        return 1;
    }
    if (strcmp(handoff_activity_get_type(activity), "com.example.installed") != 0) {
        return 1;
    }
    handoff_activity_free(activity);
    printf("libhandoff %s\n", handoff_version_string());
    return 0;
}
