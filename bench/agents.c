/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* `handoff agent` processes as devices on loopback (agents.h). */
#include "agents.h"
#include "bench.h"
#include "net.h"
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The agents the bench started: the watchdog kills them too, an overrun
 * must not leave them behind. */
#define WATCHED 7
static _Atomic pid_t agent_pids[WATCHED]; /* three sets of agents at once, and the relay's broker */
#define BROKER_SLOT 6

void agents_kill_all(void)
{
    for (int i = 0; i < WATCHED; i++)
        if (atomic_load(&agent_pids[i]) > 0)
            kill(atomic_load(&agent_pids[i]), SIGKILL);
}

static void remove_tree(const char *dir)
{
    pid_t p = fork();
    if (p == 0) {
        execlp("rm", "rm", "-rf", "--", dir, (char *)NULL);
        _exit(127);
    }
    if (p > 0)
        waitpid(p, NULL, 0);
}

static int log_says(const char *path, const char *what, char *tail, size_t tail_size)
{
    char buf[16384];
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    if (tail && tail_size) {
        size_t keep = n < tail_size - 1 ? n : tail_size - 1;
        memcpy(tail, buf + n - keep, keep);
        tail[keep] = 0;
        for (char *c = tail; *c; c++)
            if (*c == '\n')
                *c = ' ';
    }
    return strstr(buf, what) != NULL;
}

/* A process's wake-ups (voluntary context switches, all its threads) and
 * CPU time (us) so far, from /proc; -1 when unreadable. */
static void process_cost(pid_t pid, long *wakeups, long *cpu_us)
{
    char path[64];
    *wakeups = -1;
    *cpu_us = -1;
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return;
    long total = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char status[320], line[128];
        snprintf(status, sizeof status, "/proc/%d/task/%s/status", (int)pid, e->d_name);
        FILE *f = fopen(status, "r");
        if (!f)
            continue;
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "voluntary_ctxt_switches:", 24) == 0)
                total += atol(line + 24);
        fclose(f);
    }
    closedir(d);
    *wakeups = total;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the command may hold spaces */
    unsigned long utime = 0, stime = 0;
    if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) == 2)
        *cpu_us = (long)((utime + stime) * 1000000 / (unsigned long)sysconf(_SC_CLK_TCK));
}

/* What each agent of a pair cost during its rounds (set by agents_mark). */
void agents_mark(struct agents *ag)
{
    for (int i = 0; i < 2; i++)
        if (ag->pid[i] > 0)
            process_cost(ag->pid[i], &ag->wakeups[i], &ag->cpu_us[i]);
}

void agents_report(struct agents *ag, long rounds)
{
    for (int i = ag->both ? 0 : 1; i < 2 && rounds > 0; i++) {
        long w, c;
        if (ag->pid[i] <= 0 || ag->wakeups[i] < 0)
            continue;
        process_cost(ag->pid[i], &w, &c);
        if (w < 0)
            continue;
        extra_printf("  continue %s  the %s's agent per round: %.2f wake-ups (voluntary context "
                     "switches, a count), %.0f us of CPU\n",
                     ag->relay ? "relay" : ag->both ? "2agnt" : "1agnt", i ? "receiver" : "sender",
                     (double)(w - ag->wakeups[i]) / (double)rounds,
                     (double)(c - ag->cpu_us[i]) / (double)rounds);
    }
}

void agents_stop(struct agents *ag)
{
    for (int i = 0; i < 2; i++) {
        if (ag->pid[i] <= 0)
            continue;
        kill(ag->pid[i], SIGTERM);
        int64_t end = now_ns() + 5LL * 1000000000;
        while (waitpid(ag->pid[i], NULL, WNOHANG) == 0) {
            if (now_ns() > end) {
                kill(ag->pid[i], SIGKILL);
                waitpid(ag->pid[i], NULL, 0);
                break;
            }
            sleep_ns(10 * 1000000);
        }
        ag->pid[i] = 0;
        atomic_store(&agent_pids[ag->watched + i], 0);
    }
    if (ag->relay) {
        broker_stop(&ag->broker);
        atomic_store(&agent_pids[BROKER_SLOT], 0);
    }
    if (ag->dir[0])
        remove_tree(ag->dir);
    ag->dir[0] = 0;
}

/* Runs `handoff ARGS...` as device `i` (its configuration; through its
 * agent when `through_agent`), its output in `out`; its exit status, or -1
 * (not run, or killed after 20 s). */
static int run_tool(const struct agents *ag, int i, int through_agent, const char *out,
                    const char *const *args)
{
    char config[96];
    snprintf(config, sizeof config, "%s/%d/config", ag->dir, i);
    pid_t p = fork();
    if (p == 0) {
        const char *argv[12] = {"handoff"};
        int n = 1;
        for (; args[n - 1] && n < 11; n++)
            argv[n] = args[n - 1];
        argv[n] = NULL;
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int null = open("/dev/null", O_RDWR);
        if (fd >= 0)
            dup2(fd, 1), dup2(fd, 2);
        if (null >= 0)
            dup2(null, 0);
        setenv("XDG_CONFIG_HOME", config, 1);
        setenv("LC_ALL", "C", 1); /* the English words matched below */
        if (through_agent)
            setenv("HANDOFF_AGENT_SOCKET", ag->socket[i], 1);
        else
            unsetenv("HANDOFF_AGENT_SOCKET");
        unsetenv("DBUS_SESSION_BUS_ADDRESS");
        execv(ag->tool, (char *const *)argv);
        _exit(127);
    }
    if (p < 0)
        return -1;
    int status;
    int64_t end = now_ns() + 20LL * 1000000000;
    while (waitpid(p, &status, WNOHANG) == 0) {
        if (now_ns() > end) {
            kill(p, SIGKILL);
            waitpid(p, NULL, 0);
            return -1;
        }
        sleep_ns(10 * 1000000);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The line of `path` holding `what`, newline cut; "" when none. */
static void line_with(const char *path, const char *what, char *out, size_t size)
{
    char line[512];
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (strstr(line, what)) {
            line[strcspn(line, "\n")] = 0;
            snprintf(out, size, "%s", line);
            break;
        }
    fclose(f);
}

int agents_relay_check(struct agents *ag, char *out, size_t out_size)
{
    char path[128], line[512];
    snprintf(path, sizeof path, "%s/doctor.txt", ag->dir);
    static const char *const doctor[] = {"doctor", NULL};
    run_tool(ag, 1, 1, path, doctor); /* exits 1 for any warning (it listens 5 s): read what it says */
    line_with(path, "] sources.relay:", line, sizeof line);
    const char *found = strstr(line, "relay: connected");
    const char *count = found ? strstr(found, ", ") : NULL;
    if (!found || !count || atoi(count + 2) < 1) {
        snprintf(out, out_size, "handoff doctor through the receiver's agent did not report the "
                 "other device heard through the relay: \"%s\"", line[0] ? line : "(no relay line)");
        return -1;
    }
    line_with(path, "] sources.peer:", line, sizeof line);
    if (line[0]) {
        snprintf(out, out_size, "the receiver's agent has a peer, a direct path: %s", line);
        return -1;
    }
    snprintf(out, out_size, "%s", found);
    return 0;
}

static int start_agents(struct agents *ag, const char *tool, int both, int relay);

int agents_start(struct agents *ag, const char *tool, int both)
{
    return start_agents(ag, tool, both, 0);
}

int agents_start_relay(struct agents *ag, const char *tool)
{
    return start_agents(ag, tool, 1, 1);
}

static int start_agents(struct agents *ag, const char *tool, int both, int relay)
{
    memset(ag, 0, sizeof *ag);
    ag->both = both;
    ag->relay = relay;
    ag->tool = tool;
    ag->watched = relay ? 4 : both ? 2 : 0;
    if (!tool || access(tool, X_OK) != 0) {
        snprintf(ag->why, sizeof ag->why, "no handoff tool (give its path as the first argument)");
        return -1;
    }
    snprintf(ag->dir, sizeof ag->dir, "/tmp/handoff-bench-XXXXXX");
    if (!mkdtemp(ag->dir)) {
        snprintf(ag->why, sizeof ag->why, "mkdtemp: %s", strerror(errno));
        ag->dir[0] = 0;
        return -1;
    }
    int *port = ag->port;
    port[0] = pick_udp_port();
    port[1] = pick_udp_port();
    while (port[1] == port[0])
        port[1] = pick_udp_port();
    if (port[0] < 0 || port[1] < 0) {
        snprintf(ag->why, sizeof ag->why, "no free UDP port");
        return -1;
    }
    char config[2][128], runtime[2][128], logs[2][128];
    for (int i = 0; i < 2; i++) {
        char home[96], account_dir[160];
        snprintf(home, sizeof home, "%s/%d", ag->dir, i);
        snprintf(config[i], sizeof config[i], "%s/config", home);
        snprintf(runtime[i], sizeof runtime[i], "%s/run", home);
        snprintf(logs[i], sizeof logs[i], "%s/agent.log", home);
        snprintf(ag->socket[i], sizeof ag->socket[i], "%s/handoff/agent.sock", runtime[i]);
        snprintf(account_dir, sizeof account_dir, "%s/handoff", config[i]);
        handoff_account *account = handoff_account_from_key(bench_key, sizeof bench_key);
        if (mkdir(home, 0700) != 0 || mkdir(config[i], 0700) != 0 || mkdir(runtime[i], 0700) != 0 ||
            !account || handoff_account_save(account, account_dir) != HANDOFF_OK) {
            snprintf(ag->why, sizeof ag->why, "agent %d's directories: %s", i,
                     account ? handoff_last_error_message() : strerror(errno));
            handoff_account_free(account);
            return -1;
        }
        handoff_account_free(account);
    }
    if (relay) {
        int rc = broker_start(&ag->broker, ag->dir, ag->why, sizeof ag->why);
        if (rc != 0)
            return rc;
        atomic_store(&agent_pids[BROKER_SLOT], ag->broker.pid);
        /* As a person would: `handoff relay set` in each configuration. */
        char url[64], out[128], said[200];
        snprintf(url, sizeof url, "mqtt://127.0.0.1:%d", ag->broker.port);
        const char *const set[] = {"relay", "set", url, NULL};
        for (int i = 0; i < 2; i++) {
            snprintf(out, sizeof out, "%s/%d/relay-set.txt", ag->dir, i);
            if (run_tool(ag, i, 0, out, set) != 0) {
                line_with(out, "", said, sizeof said);
                snprintf(ag->why, sizeof ag->why, "handoff relay set %s failed: %.120s", url, said);
                return -1;
            }
        }
    }
    for (int i = both ? 0 : 1; i < 2; i++) {
        char beacon[16], peer[32];
        snprintf(beacon, sizeof beacon, "%d", port[i]);
        snprintf(peer, sizeof peer, "127.0.0.1:%d", port[1 - i]);
        pid_t p = fork();
        if (p == 0) {
            int log = open(logs[i], O_WRONLY | O_CREAT | O_TRUNC, 0600);
            int null = open("/dev/null", O_RDWR);
            if (log >= 0)
                dup2(log, 2);
            if (null >= 0)
                dup2(null, 0), dup2(null, 1);
            setenv("XDG_CONFIG_HOME", config[i], 1);
            setenv("XDG_RUNTIME_DIR", runtime[i], 1);
            unsetenv("HANDOFF_AGENT_SOCKET");
            unsetenv("DBUS_SESSION_BUS_ADDRESS");
            unsetenv("LISTEN_FDS");
            unsetenv("LISTEN_PID");
            /* The relay's devices get no peer: the broker is their only
             * path to each other. */
            if (relay)
                execl(tool, "handoff", "agent", "--socket", ag->socket[i], "--no-launch",
                      "--no-notifications", "--no-multicast", "--beacon-port", beacon,
                      "--channel", "127.0.0.1:0", "--connect-timeout", "1", "--fetch-timeout", "1.5",
                      (char *)NULL);
            else
                execl(tool, "handoff", "agent", "--socket", ag->socket[i], "--no-launch",
                      "--no-notifications", "--no-multicast", "--beacon-port", beacon, "--peer", peer,
                      "--channel", "127.0.0.1:0", "--connect-timeout", "1", "--fetch-timeout", "1.5",
                      (char *)NULL);
            _exit(127);
        }
        if (p < 0) {
            snprintf(ag->why, sizeof ag->why, "fork: %s", strerror(errno));
            return -1;
        }
        ag->pid[i] = p;
        atomic_store(&agent_pids[ag->watched + i], p);
    }
    /* The agent logs "listening" once its socket accepts. */
    int64_t end = now_ns() + 20LL * 1000000000;
    for (int i = both ? 0 : 1; i < 2; i++) {
        char tail[160] = "";
        while (!log_says(logs[i], "listening", tail, sizeof tail)) {
            if (waitpid(ag->pid[i], NULL, WNOHANG) == ag->pid[i]) {
                ag->pid[i] = 0;
                atomic_store(&agent_pids[ag->watched + i], 0);
                snprintf(ag->why, sizeof ag->why, "agent %d exited: %s", i, tail);
                return -1;
            }
            if (now_ns() > end) {
                snprintf(ag->why, sizeof ag->why, "agent %d did not listen within 20 s: %s", i, tail);
                return -1;
            }
            sleep_ns(10 * 1000000);
        }
    }
    /* The relay's agents: connected to the broker before the rounds. */
    for (int i = 0; relay && i < 2; i++) {
        char tail[160] = "";
        while (!log_says(logs[i], "relay: connected", tail, sizeof tail)) {
            if (now_ns() > end) {
                snprintf(ag->why, sizeof ag->why,
                         "agent %d did not connect to the broker within 20 s: %s", i, tail);
                return -1;
            }
            sleep_ns(10 * 1000000);
        }
    }
    return 0;
}
