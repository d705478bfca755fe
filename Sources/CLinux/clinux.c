#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
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
