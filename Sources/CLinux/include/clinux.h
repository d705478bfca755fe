/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Linux system interfaces the Swift Glibc module does not bring in. */
#ifndef HANDOFF_CLINUX_H
#define HANDOFF_CLINUX_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/timerfd.h>
#include <poll.h>
#include <pthread.h>
/* gettext (glibc's libintl: no library of its own): dgettext, dngettext,
 * bindtextdomain, bind_textdomain_codeset for the words a person reads
 * (HandoffAgent/Localization, docs/TRANSLATING.md). */
#include <libintl.h>

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

/* The agent's local socket (docs/agent.md §3): SO_PEERCRED and SCM_RIGHTS
 * need _GNU_SOURCE and CMSG macros, which Swift cannot use. */
/* The peer's pid, uid and gid; 0 or -1 with errno. */
int clinux_peer_credentials(int fd, int *pid, unsigned int *uid, unsigned int *gid);
/* One datagram, with `pass_fd` attached by SCM_RIGHTS when it is >= 0.
 * `flags` go to sendmsg (MSG_NOSIGNAL is always added). As sendmsg. */
long clinux_send_message(int fd, const void *bytes, unsigned long length, int pass_fd, int flags);
/* One datagram into `bytes`; descriptors passed with it (close-on-exec)
 * into `fds` (at most `max_fds`, the count in `*fd_count`; any beyond are
 * closed). `*truncated` is non-zero when the datagram or its control data
 * did not fit (the datagram is then lost: treat as malformed). As recvmsg. */
long clinux_receive_message(int fd, void *bytes, unsigned long capacity, int *fds, int max_fds,
                            int *fd_count, int *truncated, int flags);

/* Starts `path` (argv, envp: NULL-terminated) detached: its own session,
 * stdio on /dev/null, default signals, only descriptors 0-2, in `directory`
 * when not NULL; re-parented to init or a subreaper, so the caller has no
 * child left to reap. Returns 0 and the program's pid in *pid_out, or the
 * errno value of what failed (execve's own: ENOENT, EACCES, ...).
 * spawn_detached.c. */
int clinux_spawn_detached(const char *path, char *const argv[], char *const envp[],
                          const char *directory, int *pid_out);
/* pidfd_open(2) (Linux 5.3; glibc 2.36 wraps it, older ones do not, and
 * Swift cannot call the variadic syscall): a descriptor that becomes
 * readable when the process `pid` exits. Close-on-exec always (the kernel
 * sets it). -1 with errno. */
int clinux_pidfd_open(int pid);

/* openat2(2) (RESOLVE_* in `resolve`) and renameat2(2) by system call:
 * -1 with errno (ENOSYS on a kernel without them). beneath.c. */
#define CLINUX_RESOLVE_NO_XDEV 0x01ULL
#define CLINUX_RESOLVE_NO_MAGICLINKS 0x02ULL
#define CLINUX_RESOLVE_NO_SYMLINKS 0x04ULL
#define CLINUX_RESOLVE_BENEATH 0x08ULL
#define CLINUX_RENAME_NOREPLACE 1U
/* O_PATH is _GNU_SOURCE's; glibc spells its per-architecture value __O_PATH. */
#include <fcntl.h>
#define CLINUX_O_PATH __O_PATH
int clinux_openat2(int dirfd, const char *path, int flags, unsigned int mode, unsigned long long resolve);
int clinux_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);
#endif
