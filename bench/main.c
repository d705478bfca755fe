/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* bench: libhandoff latency over loopback (127.0.0.1), against raw baselines
 * taken in the same run. This file runs the parts in order; each part is
 * its own file, named below.
 *
 *   make bench        (builds the library, then builds and runs this)
 *
 * What is measured, all in one process, all on 127.0.0.1, all with
 * CLOCK_MONOTONIC (one clock for every thread):
 *
 *   raw baselines   raw.c: TCP ping-pong round trip (64 B, TCP_NODELAY;
 *                   again at the end, to see the machine did not change),
 *                   TCP connect + one round trip + close, pipe wake-up and
 *                   UDP datagram one-way from one thread to a thread
 *                   blocked in poll(), thread creation.
 *   C floors        floors.c: the thread hand-offs of each library path
 *                   re-enacted in plain C (threads, pipes, TCP/UDP; no TLS,
 *                   no crypto, no coding): what the structure alone costs
 *                   on this machine.
 *   payload coding  coding.c: the payload's encode and decode on their own.
 *   dispatch        dispatch.c: handoff_activity_set_flag(NEEDS_SAVE) on
 *                   another thread -> the app's update_user_activity_state
 *                   callback: the library's post + pollable-fd wake-up +
 *                   dispatch.
 *   continue        pair.c, continue.c: two applications, each created on
 *                   and driven by its own thread (poll() on
 *                   handoff_application_get_fd, then dispatch), joined by
 *                   continuity with unicast peers. The receiver calls
 *                   handoff_application_continue(id) and we time up to its
 *                   responder's restore_user_activity_state. Once with
 *                   connection_reuse_ms = -1 (every handoff connects and
 *                   handshakes afresh), once with the default (a warm
 *                   connection is reused).
 *   through agents  agents.c: the warm continue again with the receiving
 *                   app, then both apps, in HANDOFF_CONTINUITY_MODE_AGENT:
 *                   each device a `handoff agent` process started here (the
 *                   tool's path is the first argument, else $HANDOFF_TOOL)
 *                   with its own XDG_CONFIG_HOME (this bench's account),
 *                   XDG_RUNTIME_DIR and socket, unicast beacons on
 *                   127.0.0.1; printed next to the embedded row with the
 *                   difference at p50.
 *   through relay   agents.c, broker.c: the warm continue with both apps
 *                   through agents whose devices reach each other ONLY
 *                   through an MQTT broker: a mosquitto started here on
 *                   127.0.0.1 (anonymous; loopback, no namespaces: the
 *                   broker's hop is what is measured), `handoff relay set
 *                   mqtt://127.0.0.1:PORT` in both configurations, agents
 *                   with --no-multicast and no --peer (distinct beacon
 *                   ports), each connected ("relay: connected" in its log)
 *                   before the rounds. Printed next to the two-agent row
 *                   with the difference at p50 (goal: p50 <= 3 ms). After
 *                   the rounds `handoff doctor` through the receiver's
 *                   agent must report the other device heard through the
 *                   relay and no peer, else the row fails the run. Without
 *                   mosquitto the row says "skipped" and does not fail it.
 *                   The watchdog kills the broker with the agents.
 *                   The four warm rows run interleaved,
 *                   one round of each in turn, so that a machine whose load
 *                   changes weighs on them alike. BENCH_QUICK=1 in the
 *                   environment runs only these four rows (and a TCP round
 *                   trip).
 *   beacon          beacon.c: sender's handoff_application_become_current
 *                   (a new activity each round) -> receiver's
 *                   activity_available; a plain UDP socket among the
 *                   sender's peers, read with kernel receive timestamps,
 *                   splits it into the sender's and the receiver's share.
 *   cold start      cold.c: receiver start -> activity_available: a sender
 *                   offers an activity (keep-alive every 4 s); each round
 *                   creates a new receiver application, starts continuity
 *                   (the sender as its unicast peer) and waits for the
 *                   sender's activity: the answer to the receiver's
 *                   solicitation (PROTOCOL §5 "Schedule"). Next to it, a
 *                   raw UDP round trip (64 B, thread <-> thread).
 *
 * First sight through the link, the tailnet and the relay is
 * bench/reach_sight.py's (namespaces, root), run by `make bench` after this.
 *
 * The shared pieces: timing.c (clock, series, percentiles; bench_streams.c
 * uses it too), net.c (loopback sockets), app.c (the applications' account,
 * manifest and userInfo), report.c (the table, targets and analysis).
 *
 * Then it prints where the time goes: the pieces it can time from C, and
 * differences against the raw baselines and the C floors.
 *
 * Every wait is bounded: a round that does not finish in time is recorded as
 * a miss (counted as +infinity in the percentiles) and the run moves on;
 * each phase has a time budget and a watchdog ends the whole run. It never
 * judges timings, but it exits 1, naming the row, when any row completed
 * fewer than 95% of its rounds (or did not run): a broken path must not
 * pass quietly as "no data". Otherwise it exits 0.
 */
#include "agents.h"
#include "bench.h"
#include "pair.h"
#include "report.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WATCHDOG_NS (160LL * 1000000000) /* 58 s + the agent phases (3 x ~30 s) + cold start (~8 s) */

static _Atomic int all_done;

static void *watchdog_main(void *arg)
{
    int64_t end = now_ns() + WATCHDOG_NS;
    (void)arg;
    while (!atomic_load(&all_done)) {
        if (now_ns() > end) {
            print_report("WATCHDOG: the run overran its time limit; rows not shown did not finish");
            check_rounds(); /* names what did not finish */
            agents_kill_all();
            _exit(1);
        }
        sleep_ns(100 * 1000000);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    report_start();

    if (handoff_version_number() != HANDOFF_VERSION_NUMBER)
        printf("bench: header %s but library %s\n", HANDOFF_VERSION_STRING,
               handoff_version_string());

    pthread_t watchdog;
    pthread_create(&watchdog, NULL, watchdog_main, NULL);

    quick = getenv("BENCH_QUICK") != NULL;
    printf("bench: raw baselines...\n");
    report_speed_check(0);
    if (!quick) {
    raw_tcp_rtt(ROW_RAW_RTT);
    raw_tcp_fresh();
    raw_oneway(ROW_RAW_PIPE, 0, 0, RAW_WAKE_WARMUP, RAW_WAKE_N);
    raw_oneway(ROW_RAW_PIPE_IDLE, 0, ROUND_GAP_NS, 10, RAW_IDLE_N);
    raw_oneway(ROW_RAW_UDP, 1, 0, RAW_WAKE_WARMUP, RAW_WAKE_N);
    floor_fetch(ROW_FLOOR_FRESH, 1);
    floor_fetch(ROW_FLOOR_WARM, 0);
    floor_beacon();
    measure_thread_start();
    measure_coding();
    }
    if (quick) raw_tcp_rtt(ROW_RAW_RTT);

    static struct pair pr;
    char why[256];

    if (!quick) {
    printf("bench: fresh connections (connection_reuse_ms = -1)...\n");
    if (pair_start(&pr, -1, NULL, why, sizeof why) == 0) {
        measure_dispatch(&pr);
        measure_continue(&pr, ROW_FRESH);
    } else {
        note(ROW_DISPATCH, "%s", why);
        note(ROW_FRESH, "%s", why);
        printf("bench: fresh pair: %s\n", why);
    }
    pair_stop(&pr);
    }

    /* The four warm rows, interleaved round by round (the ring): the
     * embedded pair, the receiver through an agent, both through agents,
     * both through agents that reach each other only through a broker. */
    printf("bench: warm connection (connection_reuse_ms = 0, the default), embedded and through "
           "handoff agents, interleaved...\n");
    /* [0] the receiver through an agent, [1] both, [2] both through the relay. */
    static struct pair agent_pr[3];
    static struct agents ag[3];
    static const int agent_rows[3] = {ROW_AGENT_RECV, ROW_AGENT_WARM, ROW_AGENT_RELAY};
    int agent_up[3] = {0, 0, 0}, ringed[3] = {0, 0, 0};
    const char *tool = argc > 1 ? argv[1] : getenv("HANDOFF_TOOL");
    if (pair_start(&pr, 0, NULL, why, sizeof why) == 0) {
        struct pair *prs[4] = {&pr};
        int rows[4] = {ROW_WARM};
        int n = 1;
        for (int k = 0; k < 3; k++) {
            int row = agent_rows[k];
            int rc = k == 2 ? agents_start_relay(&ag[k], tool) : agents_start(&ag[k], tool, k);
            if (rc == 0 && pair_start(&agent_pr[k], 0, &ag[k], why, sizeof why) == 0) {
                prs[n] = &agent_pr[k];
                rows[n++] = row;
                ringed[k] = 1;
            } else if (rc == -2) {
                skip_row(row, "%s", ag[k].why); /* no mosquitto here */
                printf("bench: relay pair: %s\n", ag[k].why);
            } else {
                note(row, "%s", ag[k].why[0] ? ag[k].why : why);
                printf("bench: agent pair: %s\n", ag[k].why[0] ? ag[k].why : why);
            }
            agent_up[k] = rc == 0;
            unsetenv("HANDOFF_AGENT_SOCKET");
        }
        for (int k = 0; k < 3; k++)
            agents_mark(&ag[k]);
        measure_continue_ring(prs, rows, n);
        for (int k = 0; k < 3; k++) {
            if (agent_up[k]) {
                agents_report(&ag[k], agent_pr[k].round);
                pair_stop(&agent_pr[k]);
            }
            if (k == 2 && ringed[k]) {
                /* The relay row's figures count only if its path was the relay. */
                char said[400];
                if (agents_relay_check(&ag[k], said, sizeof said) == 0)
                    extra_printf("  continue relay  path: loopback, no namespaces (mosquitto on "
                                 "127.0.0.1:%d, agents with no peer and no multicast); the "
                                 "receiver's agent, after the rounds: \"%s\"\n",
                                 ag[k].broker.port, said);
                else
                    fail_row(ROW_AGENT_RELAY, "not through the relay: %s", said);
            }
            agents_stop(&ag[k]);
        }
        printf("bench: beacons...\n");
        if (!quick)
            measure_beacon(&pr);
    } else {
        note(ROW_WARM, "%s", why);
        note(ROW_EVENT, "%s", why);
        printf("bench: warm pair: %s\n", why);
    }
    pair_stop(&pr);

    printf("bench: cold start (receiver start -> available)...\n");
    if (!quick) {
    raw_udp_rtt();
    measure_cold_start();
    }

    raw_tcp_rtt(ROW_RAW_RTT_END);
    report_speed_check(1);
    atomic_store(&all_done, 1);
    print_report(NULL);
    pthread_join(watchdog, NULL);
    return check_rounds();
}
