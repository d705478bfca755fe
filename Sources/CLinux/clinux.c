/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "clinux.h"

int clinux_pipe2(int fds[2], int flags) { return pipe2(fds, flags); }

int clinux_accept4(int fd, struct sockaddr *address, unsigned int *length, int flags)
{
    return accept4(fd, address, length, flags);
}

void clinux_name_thread(const char *name)
{
    char cut[16];
    strncpy(cut, name, sizeof cut - 1);
    cut[sizeof cut - 1] = '\0';
    pthread_setname_np(pthread_self(), cut);
}

int clinux_peer_credentials(int fd, int *pid, unsigned int *uid, unsigned int *gid)
{
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

long clinux_send_message(int fd, const void *bytes, unsigned long length, int pass_fd, int flags)
{
    struct iovec iov = {(void *)bytes, length};
    struct msghdr message = {0};
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    if (pass_fd >= 0) {
        memset(&control, 0, sizeof control);
        message.msg_control = control.buffer;
        message.msg_controllen = sizeof control.buffer;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &pass_fd, sizeof(int));
    }
    return sendmsg(fd, &message, flags | MSG_NOSIGNAL);
}

long clinux_receive_message(int fd, void *bytes, unsigned long capacity, int *fds, int max_fds,
                            int *fd_count, int *truncated, int flags)
{
    struct iovec iov = {bytes, capacity};
    struct msghdr message = {0};
    union {
        char buffer[CMSG_SPACE(4 * sizeof(int))];
        struct cmsghdr align;
    } control;
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = control.buffer;
    message.msg_controllen = sizeof control.buffer;
    *fd_count = 0;
    *truncated = 0;
    ssize_t received = recvmsg(fd, &message, flags | MSG_CMSG_CLOEXEC);
    if (received < 0) return -1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; i++) {
            int passed;
            memcpy(&passed, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
            if (*fd_count < max_fds) fds[(*fd_count)++] = passed;
            else close(passed);
        }
    }
    if (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) *truncated = 1;
    return received;
}

int clinux_pidfd_open(int pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}
