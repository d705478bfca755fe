/* Linux system interfaces the Swift Glibc module does not bring in. */
#ifndef HANDOFF_CLINUX_H
#define HANDOFF_CLINUX_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <poll.h>
#include <pthread.h>

/* pipe2 and accept4 need _GNU_SOURCE, which the Glibc module is not built
 * with: thin wrappers, so descriptors are close-on-exec from birth (no
 * window in which a host's fork+exec could inherit them). */
int clinux_pipe2(int fds[2], int flags);
struct sockaddr;
/* `length` is a socklen_t (unsigned int on Linux); sys/socket.h is not
 * included here so its declarations stay with the Glibc module. */
int clinux_accept4(int fd, struct sockaddr *address, unsigned int *length, int flags);
/* Names the calling thread (pthread_setname_np, _GNU_SOURCE too), cut to
 * the kernel's 15 bytes: what ps -L, top -H and /proc/.../comm show. */
void clinux_name_thread(const char *name);
#endif
