/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* idle_app: an app in agent mode that does nothing, for bench/agent_idle.py.
 *
 *   idle_app [--advertise]
 *
 * Loads the account from $XDG_CONFIG_HOME/handoff, connects to the agent
 * ($HANDOFF_AGENT_SOCKET), optionally makes one activity current, prints
 * "ready" and then only waits on its fd (poll with the library's
 * next_timeout) and dispatches, until SIGTERM or SIGINT. Exit 1 when it
 * cannot start.
 */
#include <handoff.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

int main(int argc, char **argv)
{
    int advertise = argc > 1 && strcmp(argv[1], "--advertise") == 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: poll returns EINTR */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    handoff_manifest *m = handoff_manifest_new("com.example.idle", "BENCHTEAM");
    if (!m || handoff_manifest_declare_activity_type(m, "com.example.idle.view") != HANDOFF_OK)
        return fprintf(stderr, "idle_app: manifest: %s\n", handoff_last_error_message()), 1;
    handoff_application *app = handoff_application_new(m, NULL, NULL, NULL);
    handoff_manifest_free(m);
    handoff_account *account = handoff_account_load(NULL);
    if (!app || !account)
        return fprintf(stderr, "idle_app: %s\n", handoff_last_error_message()), 1;
    handoff_continuity_options o = HANDOFF_CONTINUITY_OPTIONS_INIT;
    o.account = account;
    o.mode = HANDOFF_CONTINUITY_MODE_AGENT;
    int rc = handoff_application_start_continuity(app, &o);
    handoff_account_free(account);
    if (rc != HANDOFF_OK)
        return fprintf(stderr, "idle_app: start_continuity: %s\n", handoff_last_error_message()), 1;
    handoff_activity *activity = NULL;
    if (advertise) {
        activity = handoff_activity_new("com.example.idle.view");
        if (!activity || handoff_activity_set_title(activity, "idle") != HANDOFF_OK ||
            handoff_application_become_current(app, activity) != HANDOFF_OK)
            return fprintf(stderr, "idle_app: become_current: %s\n", handoff_last_error_message()), 1;
    }
    printf("ready\n");
    fflush(stdout);
    struct pollfd p = {handoff_application_get_fd(app), POLLIN, 0};
    while (!stop) {
        if (poll(&p, 1, handoff_application_next_timeout(app)) < 0 && errno != EINTR)
            break;
        handoff_application_dispatch(app);
    }
    handoff_activity_free(activity);
    handoff_application_free(app);
    return 0;
}
