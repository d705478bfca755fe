/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Loopback sockets and pipes for the bench (net.h). */
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

int write_full(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int read_full(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = recv(fd, p, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

void set_nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void set_rcvtimeo(int fd, int ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

struct sockaddr_in loopback(int port)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

int bound_port(int fd)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    if (getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        return -1;
    return ntohs(a.sin_port);
}

int tcp_listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = loopback(0);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 64) != 0) {
        close(fd);
        return -1;
    }
    *port = bound_port(fd);
    return fd;
}

int tcp_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    set_nodelay(fd);
    set_rcvtimeo(fd, 1000);
    struct sockaddr_in a = loopback(port);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int accept_within(int listener, int ms)
{
    struct pollfd p = {listener, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0)
        return -1;
    int fd = accept(listener, NULL, NULL);
    if (fd >= 0) {
        set_nodelay(fd);
        set_rcvtimeo(fd, 1000);
    }
    return fd;
}

int udp_pair(int *a, int *b, int connects)
{
    *a = socket(AF_INET, SOCK_DGRAM, 0);
    *b = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in any = loopback(0);
    int ok = *a >= 0 && *b >= 0 && bind(*a, (struct sockaddr *)&any, sizeof any) == 0 &&
             bind(*b, (struct sockaddr *)&any, sizeof any) == 0;
    struct sockaddr_in pa = loopback(ok ? bound_port(*a) : 0), pb = loopback(ok ? bound_port(*b) : 0);
    if (ok && connects >= 1)
        ok = connect(*a, (struct sockaddr *)&pb, sizeof pb) == 0;
    if (ok && connects >= 2)
        ok = connect(*b, (struct sockaddr *)&pa, sizeof pa) == 0;
    if (ok)
        return 0;
    if (*a >= 0)
        close(*a);
    if (*b >= 0)
        close(*b);
    *a = *b = -1;
    return -1;
}

/* A UDP port free on 0.0.0.0 right now (the library binds 0.0.0.0:port),
 * chosen at random so concurrent runs and demos on this host do not meet. */
int pick_udp_port(void)
{
    for (int attempt = 0; attempt < 200; attempt++) {
        int port = 20000 + (int)(((unsigned)rand() ^ (unsigned)getpid()) % 30000u);
        int fd = socket(AF_INET, SOCK_DGRAM, 0);
        if (fd < 0)
            return -1;
        struct sockaddr_in a = loopback(port);
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        int ok = bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
        close(fd);
        if (ok)
            return port;
    }
    return -1;
}

void drain_fd(int fd)
{
    char buf[64];
    while (read(fd, buf, sizeof buf) > 0) {
    }
}
