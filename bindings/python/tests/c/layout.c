/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* layout.c: prints the size of each struct of handoff.h and the offset of
 * each field, one "struct field offset" line per field and one
 * "struct <size> N" line per struct, for test_ffi.py to compare with the
 * ctypes declarations in handoff/_ffi.py. */
#include <handoff.h>

#include <stddef.h>
#include <stdio.h>

#define SIZE(s) printf("%s <size> %zu\n", #s, sizeof(s))
#define FIELD(s, f) printf("%s %s %zu\n", #s, #f, offsetof(s, f))

int main(void)
{
    SIZE(handoff_activity_delegate);
    FIELD(handoff_activity_delegate, size);
    FIELD(handoff_activity_delegate, user_activity_will_save);
    FIELD(handoff_activity_delegate, user_activity_was_continued);
    FIELD(handoff_activity_delegate, user_activity_did_receive_stream);
    FIELD(handoff_activity_delegate, user_activity_did_fail_to_hand_off);

    SIZE(handoff_responder_callbacks);
    FIELD(handoff_responder_callbacks, size);
    FIELD(handoff_responder_callbacks, update_user_activity_state);
    FIELD(handoff_responder_callbacks, restore_user_activity_state);

    SIZE(handoff_application_delegate);
    FIELD(handoff_application_delegate, size);
    FIELD(handoff_application_delegate, will_continue_user_activity);
    FIELD(handoff_application_delegate, continue_user_activity);
    FIELD(handoff_application_delegate, did_fail_to_continue_user_activity);
    FIELD(handoff_application_delegate, did_update_user_activity);
    FIELD(handoff_application_delegate, activity_available);
    FIELD(handoff_application_delegate, activity_updated);
    FIELD(handoff_application_delegate, activity_withdrawn);
    FIELD(handoff_application_delegate, open_webpage);

    SIZE(handoff_continuity_options);
    FIELD(handoff_continuity_options, size);
    FIELD(handoff_continuity_options, account);
    FIELD(handoff_continuity_options, device_id);
    FIELD(handoff_continuity_options, device_name);
    FIELD(handoff_continuity_options, role);
    FIELD(handoff_continuity_options, beacon_port);
    FIELD(handoff_continuity_options, disable_multicast);
    FIELD(handoff_continuity_options, peers);
    FIELD(handoff_continuity_options, peer_count);
    FIELD(handoff_continuity_options, channel_address);
    FIELD(handoff_continuity_options, fetch_timeout_ms);
    FIELD(handoff_continuity_options, connect_timeout_ms);
    FIELD(handoff_continuity_options, connection_reuse_ms);
    FIELD(handoff_continuity_options, mode);

    /* The _INIT macros' size field, which the binding's sized() mirrors. */
    {
        handoff_continuity_options o = HANDOFF_CONTINUITY_OPTIONS_INIT;
        handoff_application_delegate d = HANDOFF_APPLICATION_DELEGATE_INIT;
        handoff_responder_callbacks r = HANDOFF_RESPONDER_CALLBACKS_INIT;
        handoff_activity_delegate a = HANDOFF_ACTIVITY_DELEGATE_INIT;
        printf("handoff_continuity_options <init-size> %zu\n", o.size);
        printf("handoff_application_delegate <init-size> %zu\n", d.size);
        printf("handoff_responder_callbacks <init-size> %zu\n", r.size);
        printf("handoff_activity_delegate <init-size> %zu\n", a.size);
    }
    /* Enum values the binding repeats. */
    printf("enum HANDOFF_VALUE_SET %d\n", (int)HANDOFF_VALUE_SET);
    printf("enum HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS %d\n",
           (int)HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS);
    printf("enum HANDOFF_DEVICE_ROLE_SEND_ONLY %d\n", (int)HANDOFF_DEVICE_ROLE_SEND_ONLY);
    printf("enum HANDOFF_CONTINUITY_MODE_AGENT %d\n", (int)HANDOFF_CONTINUITY_MODE_AGENT);
    printf("enum HANDOFF_CONTINUITY_MODE_EMBEDDED %d\n", (int)HANDOFF_CONTINUITY_MODE_EMBEDDED);
    printf("enum sizeof-enum %zu\n", sizeof(handoff_value_kind));
    return 0;
}
