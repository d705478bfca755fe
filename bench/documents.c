/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* bench_documents: documents on the wire (docs/documents.md, PROTOCOL.md
 * §12) as an app meets them, each row next to a baseline taken in the same
 * run between the same two embedded applications on 127.0.0.1
 * (documents_pair.c).
 *
 *   bench_documents [SCRATCH-PARENT [MIB]]   (default: build, 64)
 *
 * HOME is a scratch folder made under SCRATCH-PARENT (never under /tmp,
 * /var/tmp or $XDG_RUNTIME_DIR, which are never described) and removed at
 * the end; both applications share it, as two devices whose homes hold the
 * same file.
 *
 *   document open   the sender's activity alternates round by round between
 *                   a plain one (userInfo: a string) and a document one
 *                   (userInfo: NSUserActivityDocumentURLKey = the file: URL
 *                   of a 64 KiB file in HOME); the receiver continues each:
 *                   handoff_application_continue -> restore_user_activity_state.
 *                   Each round checks what the app got: the plain one no
 *                   document, the document one the local file's URL with
 *                   HandoffDocumentOrigins saying "same". p50/p90/p99 of both
 *                   and their difference (goal: within 1 ms).
 *   bring-along     a 64 MiB (MIB) file outside HOME (described "elsewhere", so
 *                   always brought into $HOME/Downloads/Handoff, emptied after
 *                   each round): continue -> restore, the copy checked byte for
 *                   byte afterwards; alternating with a 64 MiB continuation
 *                   stream between the same apps (continue -> the receiver
 *                   reads EOF). Medians, MiB/s and their ratio; and, for what
 *                   the disk costs, a write + fsync of 64 MiB in that folder.
 *
 * Never fails on a figure: it reports. Exits 1 when a round got something
 * else than it should or fewer than 95% of a row's rounds completed; 2 when
 * it could not be set up. A watchdog ends it after 10 minutes.
 */
#define _GNU_SOURCE
#include "documents_pair.h"
#include "timing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OPEN_WARMUP 10
#define OPEN_N 300
#define OPEN_TIMEOUT_NS (5LL * 1000000000)
#define SMALL_SIZE (64 * 1024)
#define BRING_WARMUP 1
#define BRING_N 5
#define BRING_TIMEOUT_NS (120LL * 1000000000)
#define ROUND_GAP_NS (2LL * 1000000)
#define MIB (1024.0 * 1024.0)

static char scratch[PATH_MAX];
static long long big_size = 64LL << 20; /* the bring-along's document and stream */
static int wrong; /* rounds whose app got something else than it should (the first 5 are shown) */

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void remove_scratch(void)
{
    if (scratch[0])
        nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    scratch[0] = 0;
}

/* `base` + `rest` into `out`; a path too long for it ends the run. */
static void path_join(char *out, size_t size, const char *base, const char *rest)
{
    if ((size_t)snprintf(out, size, "%s%s", base, rest) >= size) {
        fprintf(stderr, "bench_documents: the path %s%s is too long\n", base, rest);
        remove_scratch();
        exit(2);
    }
}

static void watchdog(int sig)
{
    static const char msg[] = "bench_documents: the watchdog ended the run after 10 minutes\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) {
        /* nothing more to say */
    }
    _exit(3);
}

static int setup_failed(const char *what, const char *why)
{
    fprintf(stderr, "bench_documents: %s: %s\n", what, why);
    remove_scratch();
    return 2;
}

/* A path as a file:// URL, encoded as the library writes it (FileURL, as
 * GLib's g_filename_to_uri): unreserved characters, the sub-delimiters,
 * ':', '@' and '/' stay, every other byte is escaped. */
static void file_url(char *out, size_t size, const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = (size_t)snprintf(out, size, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p && n + 4 < size; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~!$&'()*+,;=:@/", *p))
            out[n++] = (char)*p;
        else
            out[n++] = '%', out[n++] = hex[*p >> 4], out[n++] = hex[*p & 15];
    }
    out[n] = 0;
}

/* The same pseudo-random bytes for a given offset: the files' content. */
static void fill(unsigned char *buf, size_t len, unsigned long long seed)
{
    for (size_t i = 0; i < len; i += 8) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        memcpy(buf + i, &seed, len - i < 8 ? len - i : 8);
    }
}

static int write_file(const char *path, long long size)
{
    static unsigned char block[1 << 20];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    for (long long off = 0; off < size; off += sizeof block) {
        size_t len = size - off < (long long)sizeof block ? (size_t)(size - off) : sizeof block;
        fill(block, len, 0x9E3779B97F4A7C15ULL + (unsigned long long)off);
        if (write(fd, block, len) != (ssize_t)len) {
            close(fd);
            return -1;
        }
    }
    return close(fd);
}

/* 1 when the two files hold the same bytes. */
static int same_bytes(const char *a, const char *b)
{
    static char x[1 << 20], y[1 << 20];
    int fa = open(a, O_RDONLY | O_CLOEXEC), fb = open(b, O_RDONLY | O_CLOEXEC), same = fa >= 0 && fb >= 0;
    while (same) {
        ssize_t n = read(fa, x, sizeof x), m = n > 0 ? read(fb, y, (size_t)n) : read(fb, y, 1);
        if (n != m || n < 0 || (n > 0 && memcmp(x, y, (size_t)n) != 0))
            same = 0;
        if (n <= 0)
            break;
    }
    if (fa >= 0)
        close(fa);
    if (fb >= 0)
        close(fb);
    return same;
}

/* Removes every file in `dir` (the brought copies); their count. */
static int empty_folder(const char *dir)
{
    int count = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && unlinkat(dirfd(d), e->d_name, 0) == 0)
            count++;
    }
    closedir(d);
    return count;
}

/* Seconds to write `size` bytes into a new file in `dir` and fsync it. */
static double write_floor(const char *dir, long long size)
{
    static unsigned char block[1 << 16];
    char path[PATH_MAX];
    path_join(path, sizeof path, dir, "/.floor");
    int64_t t0 = now_ns();
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return NAN;
    for (long long off = 0; off < size; off += sizeof block)
        if (write(fd, block, sizeof block) != (ssize_t)sizeof block)
            break;
    fsync(fd);
    close(fd);
    double s = (double)(now_ns() - t0) / 1e9;
    unlink(path);
    return s;
}

static const char *path_under(const char *path, const char *root)
{
    size_t n = root ? strlen(root) : 0;
    return n && strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == 0) ? root : NULL;
}

static void loadavg(char *out, size_t size)
{
    FILE *f = fopen("/proc/loadavg", "r");
    out[0] = 0;
    if (f) {
        if (!fgets(out, (int)size, f))
            out[0] = 0;
        fclose(f);
    }
    out[strcspn(out, " ")] = 0;
}

static void print_row(const char *name, const series *s)
{
    printf("  %-46s %9.3f %9.3f %9.3f ms  (%zu rounds", name, percentile_of(s, 0.50) / 1e6,
           percentile_of(s, 0.90) / 1e6, percentile_of(s, 0.99) / 1e6, s->n);
    printf(s->miss ? ", %zu missed)\n" : ")\n", s->miss);
}

/* Row 1: continue -> document open when the file is already there, next
 * to a plain continue. */
static int measure_open(struct docpair *pr, const char *small_url)
{
    series plain, doc;
    series_init(&plain, OPEN_N);
    series_init(&doc, OPEN_N);
    for (long i = 0; i < 2 * (OPEN_WARMUP + OPEN_N); i++) {
        int document = i % 2;
        int measured = i / 2 >= OPEN_WARMUP;
        series *s = document ? &doc : &plain;
        struct outcome out;
        int64_t t0;
        sleep_ns(ROUND_GAP_NS);
        if (docpair_round(pr, document ? OFFER_DOCUMENT : OFFER_PLAIN, small_url, i + 1, 0, OPEN_TIMEOUT_NS,
                          &t0, &out) != 0) {
            if (s->miss < 5)
                fprintf(stderr, "bench_documents: %s round %ld: %s\n", document ? "document" : "plain", i + 1,
                        out.error);
            if (measured)
                s->miss++;
            continue;
        }
        int right = document ? strcmp(out.url, small_url) == 0 && strcmp(out.origin, "same") == 0 &&
                                   out.origin_count == 1
                             : out.url[0] == 0 && out.origin_count == 0;
        if (!right) {
            if (wrong++ < 5)
                fprintf(stderr, "bench_documents: %s round %ld restored url \"%s\", origin \"%s\" (%zu origins)\n",
                    document ? "document" : "plain", i + 1, out.url, out.origin, out.origin_count);
            if (measured)
                s->miss++;
            continue;
        }
        if (measured)
            series_add(s, out.t_restore - t0);
    }
    printf("\n  continue -> restore, alternating round by round     p50       p90       p99\n");
    print_row("plain continue (baseline)", &plain);
    print_row("document open, same file (64 KiB, in HOME)", &doc);
    double d50 = percentile_of(&doc, 0.50) - percentile_of(&plain, 0.50);
    printf("  %-46s %+9.3f %+9.3f %+9.3f ms  goal: within 1 ms at p50: %s\n", "difference",
           d50 / 1e6, (percentile_of(&doc, 0.90) - percentile_of(&plain, 0.90)) / 1e6,
           (percentile_of(&doc, 0.99) - percentile_of(&plain, 0.99)) / 1e6, d50 <= 1e6 ? "met" : "NOT met");
    int complete = plain.n * 100 >= OPEN_N * 95 && doc.n * 100 >= OPEN_N * 95;
    free(plain.v);
    free(doc.v);
    return complete;
}

/* Row 2: a 64 MiB document brought along, next to a 64 MiB continuation
 * stream between the same applications. */
static int measure_bring(struct docpair *pr, const char *big_path, const char *home)
{
    char big_url[PATH_MAX * 3 + 8], downloads[PATH_MAX], copy[PATH_MAX], copy_url[PATH_MAX * 3 + 8];
    file_url(big_url, sizeof big_url, big_path);
    path_join(downloads, sizeof downloads, home, "/Downloads/Handoff");
    path_join(copy, sizeof copy, downloads, "/big (from bench sender).bin");
    file_url(copy_url, sizeof copy_url, copy);
    series stream, stream_alone, brought, disk;
    series_init(&stream, BRING_N);
    series_init(&stream_alone, BRING_N);
    series_init(&brought, BRING_N);
    series_init(&disk, BRING_N);
    for (long i = 0; i < 2 * (BRING_WARMUP + BRING_N); i++) {
        int document = i % 2;
        int measured = i / 2 >= BRING_WARMUP;
        struct outcome out;
        int64_t t0;
        sleep_ns(ROUND_GAP_NS);
        int rc = docpair_round(pr, document ? OFFER_DOCUMENT : OFFER_STREAM, big_url, 100000 + i, big_size,
                               BRING_TIMEOUT_NS, &t0, &out);
        if (rc != 0) {
            fprintf(stderr, "bench_documents: %s round %ld: %s\n", document ? "bring-along" : "stream", i + 1,
                    out.error);
            if (measured)
                (document ? &brought : &stream)->miss++;
            empty_folder(downloads);
            continue;
        }
        if (!document) {
            if (measured) {
                series_add(&stream, out.t_stream_end - t0);
                series_add(&stream_alone, out.t_stream_end - out.t_stream_open);
            }
            continue;
        }
        int right = strcmp(out.url, copy_url) == 0 && strcmp(out.origin, "brought") == 0 &&
                    out.origin_count == 1 && same_bytes(copy, big_path);
        if (!right) {
            if (wrong++ < 5)
                fprintf(stderr, "bench_documents: bring-along round %ld restored url \"%s\", origin \"%s\" "
                    "(%zu origins); expected %s, brought and byte-identical\n",
                    i + 1, out.url, out.origin, out.origin_count, copy_url);
            if (measured)
                brought.miss++;
        } else if (measured) {
            series_add(&brought, out.t_restore - t0);
            double s = write_floor(downloads, big_size);
            if (isfinite(s))
                series_add(&disk, (int64_t)(s * 1e9));
        }
        if (empty_folder(downloads) != 1 && right) {
            wrong++;
            fprintf(stderr, "bench_documents: bring-along round %ld left other files in %s\n", i + 1, downloads);
        }
    }
    double st = median_of(&stream) / 1e9, sa = median_of(&stream_alone) / 1e9, br = median_of(&brought) / 1e9,
           dk = median_of(&disk) / 1e9, mib = big_size / MIB;
    char title[64];
    snprintf(title, sizeof title, "%.0f MiB, %d rounds each, alternating", mib, BRING_N);
    printf("\n  %-46s     median     MiB/s\n", title);
    printf("  %-46s %7.0f ms %9.0f    (the stream alone, open -> EOF: %.0f ms, %.0f MiB/s)\n",
           "continuation stream, continue -> EOF (baseline)", st * 1e3, mib / st, sa * 1e3, mib / sa);
    printf("  %-46s %7.0f ms %9.0f\n", "document brought along, continue -> restore", br * 1e3, mib / br);
    printf("  %-46s %9.0f%%\n", "brought / stream (throughput)", 100 * st / br);
    printf("  %-46s %7.0f ms %9.0f    (on the receiver's path: a floor, not a baseline)\n",
           "write + fsync of as much into Downloads/Handoff", dk * 1e3, mib / dk);
    int complete = stream.n * 100 >= BRING_N * 95 && brought.n * 100 >= BRING_N * 95;
    free(stream.v), free(stream_alone.v), free(brought.v), free(disk.v);
    return complete;
}

int main(int argc, char **argv)
{
    const char *parent = argc > 1 ? argv[1] : "build";
    if (argc > 2 && (big_size = atoll(argv[2]) << 20) <= 0)
        return fprintf(stderr, "usage: bench_documents [SCRATCH-PARENT [MIB]]\n"), 2;
    char resolved[PATH_MAX], home[PATH_MAX], outside[PATH_MAX], dir[PATH_MAX], small[PATH_MAX], big[PATH_MAX];
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, watchdog);
    alarm(600);
    if (!realpath(parent, resolved))
        return setup_failed(parent, strerror(errno));
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    const char *refused = path_under(resolved, "/tmp") ? "/tmp"
                          : path_under(resolved, "/var/tmp") ? "/var/tmp"
                          : path_under(resolved, runtime) ? "$XDG_RUNTIME_DIR" : NULL;
    if (refused)
        return setup_failed(resolved, "is under a folder whose files are never described; give another");
    char template[PATH_MAX];
    path_join(template, sizeof template, resolved, "/bench-documents-XXXXXX");
    if (!mkdtemp(template))
        return setup_failed("mkdtemp", strerror(errno));
    memcpy(scratch, template, sizeof scratch); /* removed at the end, and only it */
    path_join(home, sizeof home, scratch, "/home");
    path_join(outside, sizeof outside, scratch, "/outside");
    path_join(dir, sizeof dir, home, "/Documents");
    path_join(small, sizeof small, dir, "/plan.odt");
    path_join(big, sizeof big, outside, "/big.bin");
    if (mkdir(home, 0700) != 0 || mkdir(outside, 0700) != 0 || mkdir(dir, 0700) != 0 ||
        write_file(small, SMALL_SIZE) != 0 || write_file(big, big_size) != 0)
        return setup_failed("the scratch files", strerror(errno));
    /* Both applications' home, and nothing of the person's: no settings
     * file, no user-dirs, no tailnet. */
    setenv("HOME", home, 1);
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("XDG_DATA_HOME");
    unsetenv("XDG_STATE_HOME");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HANDOFF_AGENT_SOCKET");
    setenv("HANDOFF_TAILNET_SOCKET", "off", 1);

    char small_url[PATH_MAX * 3 + 8], why[300], load0[32], load1[32];
    file_url(small_url, sizeof small_url, small);
    loadavg(load0, sizeof load0);
    double busy0 = machine_busy_seconds();
    int64_t start = now_ns();
    struct docpair *pr = docpair_start(why, sizeof why);
    if (!pr)
        return setup_failed("the applications", why);
    printf("documents (docs/documents.md §9): two embedded apps on 127.0.0.1 sharing HOME\n");
    int complete = measure_open(pr, small_url);
    complete &= measure_bring(pr, big, home);
    docpair_stop(pr);
    double wall = (double)(now_ns() - start) / 1e9, busy1 = machine_busy_seconds();
    loadavg(load1, sizeof load1);
    printf("  machine: load average %s at the start, %s at the end; %.0f%% of its CPUs busy over %.0f s\n", load0,
           load1, busy0 >= 0 && busy1 >= 0 ? 100 * (busy1 - busy0) / (wall * sysconf(_SC_NPROCESSORS_ONLN)) : NAN,
           wall);
    remove_scratch();
    if (wrong)
        fprintf(stderr, "bench_documents: FAILED: %d rounds restored something else than they should\n", wrong);
    if (!complete)
        fprintf(stderr, "bench_documents: FAILED: a row completed fewer than 95%% of its rounds\n");
    return wrong || !complete ? 1 : 0;
}
