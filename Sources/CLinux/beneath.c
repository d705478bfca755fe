/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Opening and naming files beneath a folder a peer's words point into
 * (docs/documents.md §4): openat2 and renameat2 have no glibc wrapper the
 * Swift Glibc module sees (openat2 none at all before glibc 2.38). */
#define _GNU_SOURCE
#include "clinux.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_renameat2
#define SYS_renameat2 316
#endif

/* struct open_how of linux/openat2.h, spelled here so the build needs no
 * kernel headers of 5.6 or later. */
struct clinux_open_how {
    uint64_t flags;
    uint64_t mode;
    uint64_t resolve;
};

int clinux_openat2(int dirfd, const char *path, int flags, unsigned int mode, unsigned long long resolve) {
    struct clinux_open_how how = { (uint64_t)(unsigned int)flags, mode, resolve };
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

int clinux_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
}
