/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Loopback sockets and pipes for the bench: every socket on 127.0.0.1,
 * every wait bounded. */
#ifndef BENCH_NET_H
#define BENCH_NET_H

#include <netinet/in.h>
#include <stddef.h>

int write_full(int fd, const void *buf, size_t len);
int read_full(int fd, void *buf, size_t len);
void set_nodelay(int fd);
void set_rcvtimeo(int fd, int ms);
struct sockaddr_in loopback(int port);
int bound_port(int fd);
/* A TCP listener on 127.0.0.1, ephemeral port; -1 on failure. */
int tcp_listener(int *port);
int tcp_connect(int port);
/* accept() that gives up after `ms`. */
int accept_within(int listener, int ms);
/* Two UDP sockets on 127.0.0.1, ephemeral ports, connected: `connects` 0
 * neither, 1 `a` to `b`, 2 each to the other. 0, or -1 with none left open. */
int udp_pair(int *a, int *b, int connects);
/* A UDP port free on 0.0.0.0 right now. */
int pick_udp_port(void);
/* Reads a non-blocking fd until it is empty. */
void drain_fd(int fd);

#endif
