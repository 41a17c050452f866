/*
 * test_symbols.c - symbol resolution (traces/symbols.c) against this test
 * binary itself: a few functions defined here are looked up through the
 * module map that dl_iterate_phdr gives, so names and offsets are known
 * exactly without building anything at test time; so are a few variables
 * (data symbols).  Also: hostile module
 * files, a process stream written by hand, and the stream naming rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ips2_reader.h"
#include "ips2_record.h"
#include "ips2_symbols.h"

#include "image.h"

/* Functions to find, each well over 5 bytes long.  Only their addresses are
 * taken, so the compiler keeps them whole under their own names. */
volatile int probe_sink;

__attribute__((noinline)) int probe_alpha(int x)
{
    for (int i = 0; i < x; i++)
        probe_sink += i * 3;
    return probe_sink;
}

__attribute__((noinline)) int probe_beta(int x)
{
    for (int i = 0; i < x; i++)
        probe_sink ^= i * 7;
    return probe_sink + 1;
}

#if defined(__x86_64__)
/* A function without a size (as hand-written assembly often is). */
__asm__(".text\n"
        ".globl probe_nosize\n"
        ".type probe_nosize, @function\n"
        "probe_nosize:\n"
        "  nop\n  nop\n  nop\n  nop\n  nop\n  nop\n  nop\n  nop\n"
        "  ret\n");
void probe_nosize(void);
#endif

static struct ips2_symtab *exe_table(struct image *img)
{
    struct ips2_symtab *s = ips2_symtab_new();
    char err[IPS2_ERR_MAX] = "";

    assert_non_null(s);
    find_image(0, img);
    if (ips2_symtab_add_module(s, img->bias, img->start, img->end, img->path, err) != 0)
        fail_msg("add_module: %s", err);
    return s;
}

static void check_name(const struct ips2_symtab *s, uintptr_t addr, const char *name,
                       uint64_t want_off)
{
    uint64_t off = ~0ULL;
    const char *got = ips2_symtab_lookup(s, addr, &off);

    assert_non_null(got);
    assert_string_equal(got, name);
    assert_int_equal(off, want_off);
}

static void test_exe_functions(void **state)
{
    struct image img;
    struct ips2_symtab *s = exe_table(&img);

    check_name(s, (uintptr_t)probe_alpha, "probe_alpha", 0);
    check_name(s, (uintptr_t)probe_alpha + 5, "probe_alpha", 5);
    check_name(s, (uintptr_t)probe_beta, "probe_beta", 0);
    check_name(s, (uintptr_t)probe_beta + 5, "probe_beta", 5);
    check_name(s, (uintptr_t)test_exe_functions + 1, "test_exe_functions", 1);
#if defined(__x86_64__)
    check_name(s, (uintptr_t)probe_nosize, "probe_nosize", 0);
    check_name(s, (uintptr_t)probe_nosize + 5, "probe_nosize", 5);
#endif
    ips2_symtab_free(s);
}

static void test_outside(void **state)
{
    struct image img;
    struct ips2_symtab *s = exe_table(&img);
    uint64_t off = 0;

    assert_null(ips2_symtab_lookup(s, img.start - 1, &off));
    assert_null(ips2_symtab_lookup(s, img.end, &off));
    assert_null(ips2_symtab_lookup(s, 0, &off));
    assert_null(ips2_symtab_lookup(s, UINT64_MAX, &off));
    ips2_symtab_free(s);

    /* An empty table finds nothing. */
    s = ips2_symtab_new();
    assert_null(ips2_symtab_lookup(s, (uintptr_t)probe_alpha, &off));
    ips2_symtab_free(s);
}

/* A shared library: libc, by the address of one of its functions.  Its
 * name may be an alias (getpid or __getpid), so only the suffix is fixed. */
static void test_shared_library(void **state)
{
    struct image exe, libc;
    struct ips2_symtab *s = exe_table(&exe);
    char err[IPS2_ERR_MAX] = "";
    void *fn = dlsym(RTLD_DEFAULT, "getpid");
    uint64_t off = 1;

    assert_non_null(fn);
    find_image((uintptr_t)fn, &libc);
    if (ips2_symtab_add_module(s, libc.bias, libc.start, libc.end, libc.path, err) != 0)
        fail_msg("add_module: %s", err);
    const char *name = ips2_symtab_lookup(s, (uintptr_t)fn, &off);
    assert_non_null(name);
    assert_non_null(strstr(name, "getpid"));
    assert_int_equal(off, 0);
    /* The executable is still there. */
    check_name(s, (uintptr_t)probe_beta + 2, "probe_beta", 2);
    ips2_symtab_free(s);
}

/* Variables that hold locks, as the naming of synchronisation objects
 * looks them up: one in .bss, an array (a member: its offset), one in
 * .data, and a shared library's (libc's environ, which this program does
 * not use, so it has no copy of its own: found at libc's load bias); heap
 * and stack addresses have no name, and functions are no variables. */
static long probe_locks[8];
int probe_counter = 5;

static void test_data(void **state)
{
    struct image exe, libc;
    struct ips2_symtab *s = exe_table(&exe);
    char err[IPS2_ERR_MAX] = "";
    uint64_t off = ~0ULL;
    long on_stack = 0;
    long *on_heap = malloc(sizeof(*on_heap));

    assert_non_null(on_heap);
    assert_string_equal(ips2_symtab_lookup_data(s, (uintptr_t)&probe_locks[0], &off),
                        "probe_locks");
    assert_int_equal(off, 0);
    assert_string_equal(ips2_symtab_lookup_data(s, (uintptr_t)&probe_locks[3], &off),
                        "probe_locks");
    assert_int_equal(off, 3 * sizeof(long));
    assert_string_equal(ips2_symtab_lookup_data(s, (uintptr_t)&probe_counter, &off),
                        "probe_counter");
    assert_int_equal(off, 0);
    assert_null(ips2_symtab_lookup_data(s, (uintptr_t)on_heap, &off));
    assert_null(ips2_symtab_lookup_data(s, (uintptr_t)&on_stack, &off));
    assert_null(ips2_symtab_lookup_data(s, (uintptr_t)probe_alpha, &off));
    /* the functions still resolve, after the data were read */
    check_name(s, (uintptr_t)probe_alpha + 5, "probe_alpha", 5);

    void *environ_at = dlsym(RTLD_DEFAULT, "environ");
    assert_non_null(environ_at);
    find_image((uintptr_t)environ_at, &libc);
    assert_true(libc.start != exe.start);
    if (ips2_symtab_add_module(s, libc.bias, libc.start, libc.end, libc.path, err) != 0)
        fail_msg("add_module: %s", err);
    const char *name = ips2_symtab_lookup_data(s, (uintptr_t)environ_at, &off);
    assert_non_null(name);
    assert_non_null(strstr(name, "environ")); /* environ or an alias */
    assert_int_equal(off, 0);
    free(on_heap);
    on_stack = probe_locks[1] + probe_counter;
    ips2_symtab_free(s);
}

static void test_not_elf(void **state)
{
    char path[] = "/tmp/ips2-test-symbols-XXXXXX";
    int fd = mkstemp(path);
    char err[IPS2_ERR_MAX] = "";
    struct ips2_symtab *s = ips2_symtab_new();
    uint64_t off = 0;

    assert_true(fd >= 0);
    assert_int_equal(write(fd, "#!/bin/sh\necho not elf\n", 23), 23);
    close(fd);
    assert_int_equal(ips2_symtab_add_module(s, 0x1000, 0x10000, 0x20000, path, err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "ELF"));

    /* The module stays, without names: it reports its file name. */
    const char *base = strrchr(path, '/') + 1;
    const char *name = ips2_symtab_lookup(s, 0x10010, &off);
    assert_non_null(name);
    assert_string_equal(name, base);
    assert_int_equal(off, 0x10010 - 0x1000);
    assert_null(ips2_symtab_lookup(s, 0x20000, &off));

    /* A truncated ELF header is not an ELF file either. */
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "\177ELF\2\1\1", 7), 7);
    close(fd);
    err[0] = '\0';
    assert_int_equal(ips2_symtab_add_module(s, 0, 0x30000, 0x40000, path, err), -1);
    assert_non_null(strstr(err, path));

    unlink(path);
    ips2_symtab_free(s);
}

static void test_missing_and_directory(void **state)
{
    char err[IPS2_ERR_MAX] = "";
    struct ips2_symtab *s = ips2_symtab_new();

    assert_int_equal(ips2_symtab_add_module(s, 0, 0x1000, 0x2000, "/tmp", err), -1);
    assert_non_null(strstr(err, "/tmp"));
    err[0] = '\0';
    assert_int_equal(ips2_symtab_add_module(s, 0, 0x3000, 0x4000, "/nonexistent/ips2/libx.so", err),
                     -1);
    assert_non_null(strstr(err, "/nonexistent/ips2/libx.so"));
    err[0] = '\0';
    assert_int_equal(ips2_symtab_add_module(s, 0, 0x5000, 0x5000, "/bin/sh", err), -1);
    assert_non_null(strstr(err, "/bin/sh"));
    ips2_symtab_free(s);
}

/* A module mapped over an older one replaces it. */
static void test_replace(void **state)
{
    struct image img;
    struct ips2_symtab *s = ips2_symtab_new();
    char err[IPS2_ERR_MAX];

    find_image(0, &img);
    ips2_symtab_add_module(s, 0, img.start, img.end, "/nonexistent/old.so", err);
    assert_string_equal(ips2_symtab_lookup(s, (uintptr_t)probe_alpha, NULL), "old.so");
    assert_int_equal(ips2_symtab_add_module(s, img.bias, img.start, img.end, img.path, err), 0);
    check_name(s, (uintptr_t)probe_alpha + 3, "probe_alpha", 3);
    ips2_symtab_free(s);
}

/* Writes a raw process stream with one MODULE event per image given. */
static void write_proc_stream(const char *path, const struct image *imgs, unsigned n)
{
    static uint64_t words[IPS2_RAW_HEADER_SIZE / 8 + 4096];
    struct ips2_file_header h;
    size_t w = IPS2_RAW_HEADER_SIZE / 8;

    memset(words, 0, sizeof(words));
    ips2_header_init(&h, IPS2_ENC_RAW, IPS2_STREAM_PROCESS);
    h.timer = IPS2_TIMER_MONOTONIC;
    h.tsc_hz = 1000000000;
    h.pid = (uint32_t)getpid();
    h.state = IPS2_STATE_CLOSED;
    snprintf(h.host, sizeof(h.host), "test");
    snprintf(h.exe, sizeof(h.exe), "%.*s", (int)sizeof(h.exe) - 1, imgs[0].path);
    for (unsigned i = 0; i < n; i++) {
        uint64_t extra[2 + IPS2_PATH_MAX / 8];
        extra[0] = imgs[i].start;
        extra[1] = imgs[i].end;
        unsigned ne = 2 + ips2_string_words(extra + 2, IPS2_PATH_MAX / 8, imgs[i].path);
        ips2_record_put(words + w, IPS2_EV_MODULE, 1000 + i, 1, 5, imgs[i].bias, extra, ne);
        w += ips2_record_words(1, ne);
    }
    h.data_bytes = (w - IPS2_RAW_HEADER_SIZE / 8) * 8;
    memcpy(words, &h, sizeof(h));

    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(words, 8, w, f), w);
    fclose(f);
}

static void test_load_process(void **state)
{
    char dir[] = "/tmp/ips2-test-proc-XXXXXX";
    char path[PATH_MAX], err[IPS2_ERR_MAX] = "";
    struct image imgs[2];
    struct ips2_symtab *s = ips2_symtab_new();
    void *fn = dlsym(RTLD_DEFAULT, "getpid");

    assert_non_null(mkdtemp(dir));
    find_image(0, &imgs[0]);
    find_image((uintptr_t)fn, &imgs[1]);
    snprintf(path, sizeof(path), "%s/42.0.proc.raw", dir);
    write_proc_stream(path, imgs, 2);

    int n = ips2_symtab_load_process(s, path, err);
    if (n < 0)
        fail_msg("load_process: %s", err);
    assert_int_equal(n, 2);
    check_name(s, (uintptr_t)probe_beta + 4, "probe_beta", 4);
    assert_non_null(ips2_symtab_lookup(s, (uintptr_t)fn, NULL));
    ips2_symtab_free(s);
    unlink(path);

    /* A missing stream is an error naming it. */
    s = ips2_symtab_new();
    err[0] = '\0';
    assert_int_equal(ips2_symtab_load_process(s, path, err), -1);
    assert_non_null(strstr(err, path));
    ips2_symtab_free(s);
    rmdir(dir);
}

static void touch(const char *dir, const char *name)
{
    char path[PATH_MAX];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
}

static void expect_proc(const char *dir, const char *thread, const char *want)
{
    char in[PATH_MAX], out[PATH_MAX], exp[PATH_MAX];

    snprintf(in, sizeof(in), "%s/%s", dir, thread);
    if (!want) {
        assert_int_equal(ips2_proc_stream_path(in, out, sizeof(out)), -1);
        return;
    }
    snprintf(exp, sizeof(exp), "%s/%s", dir, want);
    assert_int_equal(ips2_proc_stream_path(in, out, sizeof(out)), 0);
    assert_string_equal(out, exp);
}

/* Clone suffixes: stripped (repeatedly), anything else kept. */
static void test_source_names(void **state)
{
    (void)state;
    static const struct {
        const char *name, *source;
    } cases[] = {
        {"work.constprop.0", "work"},
        {"helper.lto_priv.1", "helper"},
        {"scale.isra.0", "scale"},
        {"split.part.12", "split"},
        {"coldy.cold", "coldy"},
        {"f.isra.0.cold", "f"},
        {"g.constprop.0.isra.0", "g"},
        {"h.part.0.lto_priv.0", "h"},
        {"k.llvm.1234567890123", "k"},
        {"m.cold.1", "m"},
        {"main", "main"},
        {"main.1", "main.1"},   /* GCC's nested functions keep theirs */
        {"x.constprop", "x"},   /* without its number */
        {"parts.c", "parts.c"}, /* no clone word */
        {"a.coldish.0", "a.coldish.0"},
        {".cold", ".cold"}, /* all suffix: kept whole */
        {"cold", "cold"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = ips2_source_name_len(cases[i].name);
        char got[64];
        snprintf(got, sizeof(got), "%.*s", (int)n, cases[i].name);
        assert_string_equal(got, cases[i].source);
    }
}

static void test_proc_stream_path(void **state)
{
    char dir[] = "/tmp/ips2-test-names-XXXXXX";
    char path[PATH_MAX], out[16];

    assert_non_null(mkdtemp(dir));
    expect_proc(dir, "123.0.456.raw", NULL); /* no process stream yet */
    touch(dir, "123.0.proc.raw");
    expect_proc(dir, "123.0.456.raw", "123.0.proc.raw");
    expect_proc(dir, "123.0.456.3.raw", "123.0.proc.raw");
    expect_proc(dir, "123.0.456.ips2", "123.0.proc.raw");
    expect_proc(dir, "123.1.456.raw", NULL); /* another image */
    touch(dir, "123.0.proc.ips2");
    expect_proc(dir, "123.0.456.raw", "123.0.proc.ips2");
    expect_proc(dir, "123.0.456.12.ips2", "123.0.proc.ips2");
    expect_proc(dir, "123.0.proc.raw", "123.0.proc.ips2");

    /* Names that do not follow the rule. */
    expect_proc(dir, "foo.raw", NULL);
    expect_proc(dir, "123.x.456.raw", NULL);
    expect_proc(dir, "123.0.456.txt", NULL);
    expect_proc(dir, "123.0.456", NULL);
    expect_proc(dir, "123.0.abc.raw", NULL);
    expect_proc(dir, "123.0.456.x.raw", NULL);
    expect_proc(dir, ".0.456.raw", NULL);

    /* Relative name in the current directory. */
    assert_int_equal(chdir(dir), 0);
    char rel[64];
    assert_int_equal(ips2_proc_stream_path("123.0.7.raw", rel, sizeof(rel)), 0);
    assert_string_equal(rel, "123.0.proc.ips2");
    assert_int_equal(chdir("/"), 0);

    /* Too small an output buffer. */
    snprintf(path, sizeof(path), "%s/123.0.456.raw", dir);
    assert_int_equal(ips2_proc_stream_path(path, out, sizeof(out)), -1);

    snprintf(path, sizeof(path), "%s/123.0.proc.raw", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/123.0.proc.ips2", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exe_functions),         cmocka_unit_test(test_outside),
        cmocka_unit_test(test_shared_library),        cmocka_unit_test(test_not_elf),
        cmocka_unit_test(test_missing_and_directory), cmocka_unit_test(test_replace),
        cmocka_unit_test(test_load_process),          cmocka_unit_test(test_proc_stream_path),
        cmocka_unit_test(test_source_names),          cmocka_unit_test(test_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
