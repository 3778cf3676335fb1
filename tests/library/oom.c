/* oom.c — an allocation that fails in open is an error, not an exit.
 * Compile like harness.c (-DCHAIN=name, -include name.h). The address
 * space is limited (RLIMIT_AS) to what the process holds plus 64 KiB,
 * 1 MiB and 4 MiB in turn, so that open's arenas, buffers or threads
 * cannot be had: each open must return an error with its message; then,
 * the limit lifted, open must succeed in the same process.
 *
 *   oom        prints a line per attempt; exits 0 when every limited
 *              open failed cleanly and the last succeeded */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define API(f) CAT(CHAIN, CAT(_, f))
typedef CHAIN chain_t;

/* The process's address space, bytes (VmSize of /proc/self/status). */
static long vm_size(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmSize:", 7))
            sscanf(line + 7, "%ld", &kb);
    if (f)
        fclose(f);
    return kb * 1024;
}

int main(void)
{
    struct rlimit old;
    getrlimit(RLIMIT_AS, &old);
    const long heads[] = {1L << 16, 1L << 20, 4L << 20};
    int failed = 0, tries = 0;
    for (; tries < 3; tries++) {
        long head = heads[tries];
        struct rlimit lim = {(rlim_t)(vm_size() + head), old.rlim_max};
        setrlimit(RLIMIT_AS, &lim);
        chain_t *c = NULL;
        int status = API(open)(&c, NULL);
        setrlimit(RLIMIT_AS, &old);
        if (status == 0) {
            printf("headroom %ld: opened\n", head);
            API(close)(c);
        } else {
            printf("headroom %ld: open failed (%d): %s\n", head, status, API(error)(NULL));
            failed++;
        }
    }
    chain_t *c = NULL;
    if (API(open)(&c, NULL) != 0) {
        printf("open without a limit failed: %s\n", API(error)(NULL));
        return 1;
    }
    API(close)(c);
    printf("then opened: the process lives on\n");
    return failed == tries ? 0 : 1;
}
