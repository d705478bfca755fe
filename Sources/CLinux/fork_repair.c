/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Keeps the statically linked Swift runtime usable in a child of fork().
 *
 * The Swift runtime caches each thread's kernel thread id in a thread-local
 * (swift::threading_impl::linux::ulock_get_tid()::tid, also
 * _swift_stdlib_gettid's and libdispatch's) and writes it as the owner into
 * the priority-inheritance futex behind every swift_once (metadata caches,
 * globals). It has no fork handler, and it caches the main thread's id while
 * the library loads (swift_addNewDSOImage runs a swift_once). So in a child
 * of fork() the forking thread still owns-by-id the *parent's* thread: the
 * first time it holds a once that one of our threads also waits for (first
 * use of some generic metadata, e.g. Optional's `$sSqMz`), the waiter's
 * FUTEX_LOCK_PI records the parent as owner, the holder's FUTEX_UNLOCK_PI
 * then fails with EPERM forever, and both threads spin in once_slow. That
 * was test_restoration's rare 120 s hang (check.h forks once the library
 * is loaded); hosts that fork and go on using the library (daemons, Python
 * multiprocessing) would hit it too.
 *
 * The runtime is linked into this library (-static-stdlib), so those
 * thread-locals live in this module's own TLS block. A fork handler puts the
 * child's thread id wherever the forking thread's block held the parent's.
 * A block not yet allocated for the thread (NULL), or holding no cached id,
 * is left alone: the runtime then asks the kernel afresh. With a dynamically
 * linked runtime (swift test) the caches live elsewhere and nothing is found.
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* What the prepare handler saw, read by the child handler on the same
 * thread (the only one a child has). Thread-local so that concurrent forks
 * from different threads do not mix. */
struct fork_state {
    unsigned char *block; /* this thread's instance of our PT_TLS segment */
    size_t size;
    int32_t tid; /* the thread's id in the parent */
};
static __thread struct fork_state fork_state;

static int find_own_tls(struct dl_phdr_info *info, size_t size, void *data)
{
    struct fork_state *state = data;
    uintptr_t self = (uintptr_t)&find_own_tls;
    int mine = 0;
    size_t tls_size = 0;
    ElfW(Half) i;
    if (size < offsetof(struct dl_phdr_info, dlpi_tls_data) + sizeof info->dlpi_tls_data) return 0;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && self >= start && self - start < ph->p_memsz) mine = 1;
        if (ph->p_type == PT_TLS) tls_size = ph->p_memsz;
    }
    if (!mine) return 0;
    state->block = info->dlpi_tls_data;
    state->size = state->block ? tls_size : 0;
    return 1;
}

static void before_fork(void)
{
    struct fork_state state = {NULL, 0, (int32_t)syscall(SYS_gettid)};
    dl_iterate_phdr(find_own_tls, &state);
    fork_state = state;
}

static void in_child(void)
{
    struct fork_state state = fork_state; /* before the scan can rewrite it */
    unsigned char *skip = (unsigned char *)&fork_state;
    int32_t now;
    size_t at;
    if (!state.block) return;
    now = (int32_t)syscall(SYS_gettid);
    for (at = 0; at + sizeof now <= state.size; at += sizeof now) {
        unsigned char *slot = state.block + at;
        int32_t value;
        if (slot + sizeof now > skip && slot < skip + sizeof fork_state) continue;
        memcpy(&value, slot, sizeof value);
        if (value == state.tid) memcpy(slot, &now, sizeof now);
    }
}

__attribute__((constructor)) static void register_fork_repair(void)
{
    pthread_atfork(before_fork, NULL, in_child);
}
