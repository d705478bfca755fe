/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A mosquitto on 127.0.0.1 (broker.h). */
#include "broker.h"
#include "bench.h"
#include "net.h"
#include "timing.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* mosquitto lives in sbin, often outside a user's $PATH. */
static int find_mosquitto(char *path, size_t size)
{
    const char *env = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s:/usr/sbin:/sbin:/usr/local/sbin", env ? env : "");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, size, "%s/mosquitto", d);
        if (d[0] && access(path, X_OK) == 0)
            return 0;
    }
    return -1;
}

/* A TCP port free on 127.0.0.1 right now (the kernel's choice). */
static int pick_tcp_port(void)
{
    int port = -1;
    int fd = tcp_listener(&port);
    if (fd < 0)
        return -1;
    close(fd);
    return port;
}

static void log_tail(const char *path, char *out, size_t size)
{
    char buf[2048];
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    size_t keep = n < size - 1 ? n : size - 1;
    memcpy(out, buf + n - keep, keep);
    out[keep] = 0;
    for (char *c = out; *c; c++)
        if (*c == '\n')
            *c = ' ';
}

int broker_start(struct broker *b, const char *dir, char *why, size_t why_size)
{
    char program[4200], conf[160], tail[120];
    memset(b, 0, sizeof *b);
    if (find_mosquitto(program, sizeof program) != 0) {
        snprintf(why, why_size, "mosquitto is not installed (scripts/install-deps.sh installs it)");
        return -2;
    }
    b->port = pick_tcp_port();
    if (b->port < 0) {
        snprintf(why, why_size, "no free TCP port for the broker");
        return -1;
    }
    snprintf(conf, sizeof conf, "%s/mosquitto.conf", dir);
    snprintf(b->log, sizeof b->log, "%s/mosquitto.log", dir);
    FILE *f = fopen(conf, "w");
    if (!f) {
        snprintf(why, why_size, "%s: %s", conf, strerror(errno));
        return -1;
    }
    /* As root mosquitto would switch to the user "mosquitto", who may not
     * read this directory: stay root. set_tcp_nodelay: without it the
     * broker's small writes wait on Nagle for the receiver's delayed ACK
     * (40 ms a hop here); a broker run for latency sets it. */
    fprintf(f, "listener %d 127.0.0.1\nallow_anonymous true\npersistence false\nset_tcp_nodelay true\n%s",
            b->port, geteuid() == 0 ? "user root\n" : "");
    fclose(f);
    pid_t p = fork();
    if (p == 0) {
        int log = open(b->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int null = open("/dev/null", O_RDWR);
        if (log >= 0)
            dup2(log, 2), dup2(log, 1);
        if (null >= 0)
            dup2(null, 0);
        execl(program, "mosquitto", "-c", conf, (char *)NULL);
        _exit(127);
    }
    if (p < 0) {
        snprintf(why, why_size, "fork: %s", strerror(errno));
        return -1;
    }
    b->pid = p;
    /* Ready when its listener accepts. */
    int64_t end = now_ns() + 10LL * 1000000000;
    for (;;) {
        int fd = tcp_connect(b->port);
        if (fd >= 0) {
            close(fd);
            return 0;
        }
        if (waitpid(p, NULL, WNOHANG) == p) {
            b->pid = 0;
            log_tail(b->log, tail, sizeof tail);
            snprintf(why, why_size, "mosquitto exited: %s", tail);
            return -1;
        }
        if (now_ns() > end) {
            log_tail(b->log, tail, sizeof tail);
            snprintf(why, why_size, "mosquitto did not listen on 127.0.0.1:%d within 10 s: %s",
                     b->port, tail);
            return -1;
        }
        sleep_ns(10 * 1000000);
    }
}

void broker_stop(struct broker *b)
{
    if (b->pid <= 0)
        return;
    kill(b->pid, SIGTERM);
    int64_t end = now_ns() + 5LL * 1000000000;
    while (waitpid(b->pid, NULL, WNOHANG) == 0) {
        if (now_ns() > end) {
            kill(b->pid, SIGKILL);
            waitpid(b->pid, NULL, 0);
            break;
        }
        sleep_ns(10 * 1000000);
    }
    b->pid = 0;
}
