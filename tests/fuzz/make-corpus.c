/*
 * make-corpus.c - writes the seed corpus of the trace reader fuzz target.
 *
 *   make-corpus DIR
 *
 * Small valid streams that together cover every event kind, both timers,
 * the three CPU methods, thread and process streams, closed and unclosed
 * raw streams, one-word short records (procedure and lock records), PAD
 * records, a record cut off by the end of the file, and
 * the packed encoding (made by ips2_pack_file from the raw ones, so that
 * packed seeds always match the packer).  Raw streams are written word by
 * word with the shared record encoder (ips2_record.h), not the writer
 * library, to reach the states a crashed writer leaves.  The output is
 * deterministic: the same program writes the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_pack.h"
#include "ips2_reader.h"
#include "ips2_record.h"

#define MAX_WORDS 8192

/* One raw stream being built in memory. */
struct stream {
    struct ips2_file_header h;
    uint64_t words[MAX_WORDS]; /* records, after the header page */
    size_t n;
    uint64_t timer, cpu;
    uint64_t sync_timer; /* of the latest SYNC: the base of short records */
};

static const char *outdir;

static void die(const char *what)
{
    fprintf(stderr, "make-corpus: %s\n", what);
    exit(1);
}

static void begin(struct stream *s, unsigned kind, unsigned cpu_method, unsigned timer)
{
    memset(s, 0, sizeof(*s));
    ips2_header_init(&s->h, IPS2_ENC_RAW, kind);
    s->h.cpu_method = (uint8_t)cpu_method;
    s->h.cpu_param = cpu_method == IPS2_CPU_INTERP ? 1000 : cpu_method == IPS2_CPU_TICK ? 10 : 0;
    s->h.sync_records = cpu_method == IPS2_CPU_INTERP ? 8 : 0;
    s->h.timer = timer;
    s->h.tsc_hz = timer == IPS2_TIMER_TSC ? 2900000000ULL : 1000000000ULL;
    s->h.ref_tsc = timer == IPS2_TIMER_TSC ? 5000000000ULL : 1000000000ULL;
    s->h.ref_mono_ns = 1000000000ULL;
    s->h.ref_real_ns = 1763700000000000000ULL;
    s->h.features = IPS2_FEAT_PROC_EVENTS;
    s->h.pid = 4242;
    s->h.ppid = 1;
    s->h.tid = kind == IPS2_STREAM_THREAD ? 4242 : 0;
    s->h.cost_ns[IPS2_COST_PROC] = 12;
    s->h.cost_ns[IPS2_COST_SYNC] = 40;
    snprintf(s->h.host, sizeof(s->h.host), "seedhost");
    snprintf(s->h.app, sizeof(s->h.app), "seed-app");
    snprintf(s->h.exe, sizeof(s->h.exe), "/usr/bin/seed");
    s->timer = s->h.ref_tsc;
    s->cpu = 100000;
}

/* Appends a record; the timer and CPU time advance a little each time. */
static void put(struct stream *s, unsigned kind, int has_cpu, uint64_t payload,
                const uint64_t *extra, unsigned nextra)
{
    unsigned words = ips2_record_words(has_cpu ? 1 : 0, nextra);

    if (s->n + words + 1 > MAX_WORDS)
        die("stream too long");
    s->timer += 1000 + (s->n % 7) * 100;
    s->cpu += 700 + (s->n % 5) * 50;
    ips2_record_put(s->words + s->n, kind, s->timer, has_cpu, s->cpu, payload, extra, nextra);
    s->n += words;
    if (kind == IPS2_EV_SYNC)
        s->sync_timer = s->timer;
}

/* Appends a one-word ENTER_SHORT / EXIT_SHORT record for addr, which must
 * share its high 32 bits with the latest long ENTER or EXIT. */
static void put_short(struct stream *s, unsigned kind, uint64_t addr)
{
    if (s->n + 2 > MAX_WORDS)
        die("stream too long");
    s->timer += 300 + (s->n % 3) * 10;
    s->words[s->n++] = IPS2_SHORT_WORD(kind, s->timer - s->sync_timer, addr & 0xffffffffu);
}

/* Appends a one-word short lock record (ips2_format.h): the word's kind
 * and fields as given, its timer delta from the latest SYNC. */
static void put_lock_word(struct stream *s, unsigned kind, unsigned slot, uint64_t seq_delta,
                          uint64_t hold)
{
    if (s->n + 2 > MAX_WORDS)
        die("stream too long");
    s->timer += 200 + (s->n % 3) * 10;
    uint64_t delta = s->timer - s->sync_timer;
    s->words[s->n++] = kind == IPS2_EV_LOCK_HELD_SHORT
                           ? IPS2_LOCK_HELD_WORD(delta, slot, seq_delta, hold)
                           : IPS2_LOCK_WORD(kind, delta, slot, seq_delta);
    s->timer += hold;
}

static void put_string(struct stream *s, unsigned kind, uint64_t payload, const uint64_t *pre,
                       unsigned npre, const char *str)
{
    uint64_t extra[IPS2_RAW_MAX_EXTRA];
    unsigned n = npre;

    memcpy(extra, pre, npre * sizeof(*pre));
    n += ips2_string_words(extra + npre, IPS2_RAW_MAX_EXTRA - 1 - npre, str);
    put(s, kind, 1, payload, extra, n);
}

/* Writes the stream; closed: state CLOSED with exact data_bytes; extra
 * zero bytes after the records stand for the rest of a mapped window. */
static void write_stream(struct stream *s, const char *name, int closed, size_t zero_tail,
                         size_t cut_bytes)
{
    char path[4096];
    unsigned char page[IPS2_RAW_HEADER_SIZE];
    size_t bytes = s->n * 8;

    s->h.state = closed ? IPS2_STATE_CLOSED : IPS2_STATE_OPEN;
    s->h.data_bytes = closed ? bytes : 0;
    memset(page, 0, sizeof(page));
    memcpy(page, &s->h, sizeof(s->h));
    snprintf(path, sizeof(path), "%s/%s", outdir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        die(path);
    static const uint64_t zeros[64];
    if (fwrite(page, 1, sizeof(page), f) != sizeof(page) ||
        fwrite(s->words, 1, bytes - cut_bytes, f) != bytes - cut_bytes ||
        fwrite(zeros, 1, zero_tail, f) != zero_tail || fclose(f) != 0)
        die(path);
}

static void pack(const char *raw, const char *packed)
{
    char in[4096], out[4096], err[IPS2_ERR_MAX];

    snprintf(in, sizeof(in), "%s/%s", outdir, raw);
    snprintf(out, sizeof(out), "%s/%s", outdir, packed);
    if (ips2_pack_file(in, out, err) != 0)
        die(err);
}

/* Procedure addresses: a few functions of a PIE executable. */
static const uint64_t procs[] = {0x555555555100, 0x555555555180, 0x5555555551f0, 0x555555555260,
                                 0x7ffff7e41000};

/* A call tree of depth up to 3 below procs[0]; CPU read at each event
 * unless interp, where every 8th event is a SYNC that carries it. */
static void calls(struct stream *s, unsigned rounds, int has_cpu)
{
    unsigned events = 0;

    put(s, IPS2_EV_ENTER, has_cpu, procs[0], NULL, 0);
    for (unsigned r = 0; r < rounds; r++) {
        unsigned a = 1 + r % 3, b = 1 + (r + 1) % 4;
        put(s, IPS2_EV_ENTER, has_cpu, procs[a], NULL, 0);
        put(s, IPS2_EV_ENTER, has_cpu, procs[b], NULL, 0);
        put(s, IPS2_EV_EXIT, has_cpu, procs[b], NULL, 0);
        put(s, IPS2_EV_EXIT, has_cpu, procs[a], NULL, 0);
        events += 4;
        if (!has_cpu && events % 8 == 0) {
            uint64_t mono = s->h.ref_mono_ns + events * 1000;
            put(s, IPS2_EV_SYNC, 1, 0, &mono, 1);
        }
    }
    put(s, IPS2_EV_EXIT, has_cpu, procs[0], NULL, 0);
}

/* The hot-path form: a SYNC, a long ENTER that sets the address base,
 * one-word records inside it, a long EXIT. */
static void short_calls(struct stream *s, unsigned rounds)
{
    uint64_t mono = s->h.ref_mono_ns + s->n * 1000;

    put(s, IPS2_EV_SYNC, 1, 0, &mono, 1);
    put(s, IPS2_EV_ENTER, 0, procs[0], NULL, 0);
    for (unsigned r = 0; r < rounds; r++) {
        unsigned a = 1 + r % 3;
        put_short(s, IPS2_EV_ENTER_SHORT, procs[a]);
        put_short(s, IPS2_EV_ENTER_SHORT, procs[1 + (a % 3)]);
        put_short(s, IPS2_EV_EXIT_SHORT, procs[1 + (a % 3)]);
        put_short(s, IPS2_EV_EXIT_SHORT, procs[a]);
    }
    put(s, IPS2_EV_EXIT, 0, procs[0], NULL, 0);
}

/* Messages and files (FORMAT.md 9.2): a TCP connection, a byte stream
 * both ways, a datagram, a wait, a file's open, I/O, seek, sync and close. */
static void message_kinds(struct stream *s)
{
    uint64_t ep[9] = {4, 0x1234,        0x5678, 0xa000000000a, 0, 0xffff7f000001, 0x1f9000000000a,
                      0, 0xffff7f000001};
    uint64_t x[10];

    memcpy(x, (uint64_t[]){0x1234, 0, 1000, 0}, 4 * sizeof(uint64_t));
    memcpy(x + 3, ep + 3, 6 * sizeof(uint64_t));
    put(s, IPS2_EV_CONNECT, 1, 5, x, 9);
    put(s, IPS2_EV_CHAN, 0, 5, ep, 9);
    memcpy(x, (uint64_t[]){0x1234, 0, 100, 0, 2000, IPS2_IO_SEND}, 6 * sizeof(uint64_t));
    put(s, IPS2_EV_SEND, 0, 5, x, 6);
    memcpy(x, (uint64_t[]){0x5678, 0, 7, 0, 3000, IPS2_IO_READ}, 6 * sizeof(uint64_t));
    put(s, IPS2_EV_RECV, 1, 5, x, 6);
    x[3] = 4; /* EINTR */
    x[2] = 0;
    put(s, IPS2_EV_RECV, 1, 5, x, 6);
    memcpy(x, (uint64_t[]){0x9abc, 3, 64, 0, 4000, IPS2_IO_SENDTO}, 6 * sizeof(uint64_t));
    memcpy(x + 6, ep + 6, 3 * sizeof(uint64_t));
    put(s, IPS2_EV_DGRAM_SEND, 0, 6, x, 9);
    x[5] = IPS2_IO_RECVFROM | IPS2_IO_PEEK;
    put(s, IPS2_EV_DGRAM_RECV, 1, 6, x, 9);
    memcpy(x, (uint64_t[]){IPS2_IO_POLL, 0, 5000, 2, UINT64_MAX}, 5 * sizeof(uint64_t));
    put(s, IPS2_EV_IO_WAIT, 1, 1, x, 5);
    memcpy(x, (uint64_t[]){0, 0x241, 6000, IPS2_CHAN_FILE}, 4 * sizeof(uint64_t));
    put_string(s, IPS2_EV_OPEN, 7, x, 4, "/tmp/out.dat");
    memcpy(x, (uint64_t[]){0, 55, 0, 7000, IPS2_IO_WRITE, IPS2_CHAN_FILE}, 6 * sizeof(uint64_t));
    put(s, IPS2_EV_FILE_WRITE, 0, 7, x, 6);
    x[0] = UINT64_MAX;
    put(s, IPS2_EV_FILE_READ, 1, 7, x, 6);
    memcpy(x, (uint64_t[]){0, 2 /* SEEK_END */, 55, 0, 8000}, 5 * sizeof(uint64_t));
    put(s, IPS2_EV_FILE_SEEK, 0, 7, x, 5);
    memcpy(x, (uint64_t[]){IPS2_IO_FSYNC, 0, 9000}, 3 * sizeof(uint64_t));
    put(s, IPS2_EV_FILE_SYNC, 1, 7, x, 3);
    memcpy(x, (uint64_t[]){0, 9500, IPS2_CHAN_FILE, 0}, 4 * sizeof(uint64_t));
    put(s, IPS2_EV_CLOSE, 0, 7, x, 4);
    memcpy(x, (uint64_t[]){1 /* SHUT_WR */, 0, 0x1234}, 3 * sizeof(uint64_t));
    put(s, IPS2_EV_SHUTDOWN, 0, 5, x, 3);
    memcpy(x, (uint64_t[]){0x1234, 0, 10000}, 3 * sizeof(uint64_t));
    memcpy(x + 3, ep + 6, 3 * sizeof(uint64_t));
    memcpy(x + 6, ep + 3, 3 * sizeof(uint64_t));
    x[9] = 3;
    put(s, IPS2_EV_ACCEPT, 1, 8, x, 10);
}

/* Synchronisation (FORMAT.md 9.1): a private mutex taken at once and after
 * a wait, a shared rwlock read, a spin with its CPU reading, a failed
 * trylock, a condition wait, a barrier episode and a named semaphore. */
static void sync_kinds(struct stream *s)
{
    const uint64_t m = 0x555555558040, shared = IPS2_SYNC_KEY_SHARED | 17;
    uint64_t x[8];

    memcpy(x, (uint64_t[]){IPS2_SYNC_MUTEX, m, 0, 0, 0}, 5 * sizeof(uint64_t));
    put(s, IPS2_EV_SYNC_OBJECT, 1, m, x, 5);
    memcpy(x, (uint64_t[]){IPS2_SYNC_MUTEX, 0, 0, 0}, 4 * sizeof(uint64_t));
    put(s, IPS2_EV_SYNC_INIT, 1, m, x, 4);
    x[0] = 0;
    put(s, IPS2_EV_LOCK_ACQUIRED, 0, m, x, 1);
    x[0] = 1;
    put(s, IPS2_EV_LOCK_RELEASE, 0, m, x, 1);
    memcpy(x, (uint64_t[]){2, s->timer}, 2 * sizeof(uint64_t));
    put(s, IPS2_EV_LOCK_ACQUIRED, 1, m, x, 2);
    memcpy(x, (uint64_t[]){IPS2_SYNC_MUTEX, 16 /* EBUSY */, 0}, 3 * sizeof(uint64_t));
    put(s, IPS2_EV_SYNC_FAILED, 0, m, x, 3);
    memcpy(x, (uint64_t[]){IPS2_SYNC_RWLOCK, 0x7f0000001000, 27, 1363, 64}, 5 * sizeof(uint64_t));
    put(s, IPS2_EV_SYNC_OBJECT, 1, shared, x, 5);
    x[0] = 5;
    put(s, IPS2_EV_LOCK_ACQUIRED_SHARED, 0, shared, x, 1);
    x[0] = 6;
    put(s, IPS2_EV_LOCK_RELEASE_SHARED, 0, shared, x, 1);
    memcpy(x, (uint64_t[]){3, s->timer, s->cpu}, 3 * sizeof(uint64_t));
    put(s, IPS2_EV_LOCK_ACQUIRED, 1, m + 64, x, 3);
    x[0] = 4;
    put(s, IPS2_EV_COND_SIGNAL, 0, m + 128, x, 1);
    put(s, IPS2_EV_COND_BROADCAST, 0, m + 128, x, 1);
    memcpy(x, (uint64_t[]){m, 3, 4, s->timer, 0}, 5 * sizeof(uint64_t));
    put(s, IPS2_EV_COND_WAKE, 1, m + 128, x, 5);
    memcpy(x, (uint64_t[]){4, 2, 2}, 3 * sizeof(uint64_t));
    put(s, IPS2_EV_BARRIER_ARRIVE, 0, m + 256, x, 3);
    memcpy(x, (uint64_t[]){2, 1, s->timer}, 3 * sizeof(uint64_t));
    put(s, IPS2_EV_BARRIER_DEPART, 1, m + 256, x, 3);
    memcpy(x, (uint64_t[]){IPS2_SYNC_SEM, 0x7f0000002000, 27, 1400, 0}, 5 * sizeof(uint64_t));
    put_string(s, IPS2_EV_SYNC_OBJECT, shared + 1, x, 5, "/seed-sem");
    x[0] = 1;
    put(s, IPS2_EV_SEM_POST, 0, shared + 1, x, 1);
    memcpy(x, (uint64_t[]){1, 0, s->timer}, 3 * sizeof(uint64_t));
    put(s, IPS2_EV_SEM_ACQUIRED, 1, shared + 1, x, 3);
    memcpy(x, (uint64_t[]){IPS2_SYNC_SEM, 0}, 2 * sizeof(uint64_t));
    put(s, IPS2_EV_SYNC_DESTROY, 1, shared + 1, x, 2);
}

/* Every thread-stream kind, once or more. */
static void all_thread_kinds(struct stream *s, int has_cpu)
{
    uint64_t x[2];

    x[0] = 1;
    put(s, IPS2_EV_PROC_START, 1, IPS2_START_INITIAL, x, 1);
    x[0] = s->h.ref_mono_ns;
    put(s, IPS2_EV_SYNC, 1, 0, x, 1);
    calls(s, 4, has_cpu);
    put(s, IPS2_EV_THREAD_CREATE, 1, 1, NULL, 0);
    put(s, IPS2_EV_JOIN_BEGIN, 1, 1, NULL, 0);
    x[0] = 0;
    put(s, IPS2_EV_JOIN_END, 1, 1, x, 1);
    put(s, IPS2_EV_FORK, 1, 4243, NULL, 0);
    put(s, IPS2_EV_FORK, 1, 0, NULL, 0);
    put(s, IPS2_EV_EXEC_FAILED, 1, 2, NULL, 0);
    put(s, IPS2_EV_LOST, 1, 17, NULL, 0);
    calls(s, 3, has_cpu);
    short_calls(s, 4);
    message_kinds(s);
    sync_kinds(s);
    put_string(s, IPS2_EV_EXEC, 0, NULL, 0, "/usr/bin/next-program");
    x[0] = 0;
    put(s, IPS2_EV_PROC_EXIT, 1, IPS2_EXIT_EXEC, x, 1);
}

/* A second thread: started by the first, joined. */
static void second_thread(struct stream *s)
{
    uint64_t x[2] = {1, 0x7ffff7a00640};

    s->h.tid = 4250;
    put(s, IPS2_EV_THREAD_START, 1, 4242, x, 2);
    calls(s, 5, 1);
    put(s, IPS2_EV_THREAD_EXIT, 1, IPS2_EXIT_RETURN, NULL, 0);
}

static void module(struct stream *s, uint64_t bias, uint64_t start, uint64_t end, const char *p)
{
    uint64_t pre[2] = {start, end};
    put_string(s, IPS2_EV_MODULE, bias, pre, 2, p);
}

int main(int argc, char **argv)
{
    static struct stream s;

    if (argc != 2) {
        fprintf(stderr, "usage: make-corpus DIR\n");
        return 2;
    }
    outdir = argv[1];

    /* Exact CPU, monotonic timer, closed. */
    begin(&s, IPS2_STREAM_THREAD, IPS2_CPU_EXACT, IPS2_TIMER_MONOTONIC);
    all_thread_kinds(&s, 1);
    write_stream(&s, "4242.0.4242.raw", 1, 0, 0);
    pack("4242.0.4242.raw", "4242.0.4242.ips2");

    /* Interpolated CPU, TSC timer, closed; a second thread. */
    begin(&s, IPS2_STREAM_THREAD, IPS2_CPU_INTERP, IPS2_TIMER_TSC);
    second_thread(&s);
    all_thread_kinds(&s, 0);
    write_stream(&s, "4242.0.4250.raw", 1, 0, 0);
    pack("4242.0.4250.raw", "4242.0.4250.ips2");

    /* Tick CPU, killed by a signal: never closed, zeros after the end. */
    begin(&s, IPS2_STREAM_THREAD, IPS2_CPU_TICK, IPS2_TIMER_MONOTONIC);
    s.h.features |= IPS2_FEAT_TRUNCATED;
    s.h.pid = s.h.tid = 4243;
    uint64_t st = 0;
    put(&s, IPS2_EV_PROC_START, 1, IPS2_START_FORK, &st, 1);
    calls(&s, 6, 1);
    st = 11;
    put(&s, IPS2_EV_PROC_EXIT, 1, IPS2_EXIT_SIGNAL, &st, 1);
    write_stream(&s, "4243.0.4243.raw", 0, 64, 0);

    /* Interpolated, unclosed, ending in a record cut in half (the file
     * ends inside it, as when a copy was taken mid-write). */
    begin(&s, IPS2_STREAM_THREAD, IPS2_CPU_INTERP, IPS2_TIMER_TSC);
    s.h.pid = s.h.tid = 4244;
    calls(&s, 9, 0);
    put_string(&s, IPS2_EV_EXEC, 0, NULL, 0, "/bin/a-program-with-a-long-name");
    write_stream(&s, "4244.0.4244.raw", 0, 0, 20);

    /* PAD records: the tail of a writer window skipped, then more. */
    begin(&s, IPS2_STREAM_THREAD, IPS2_CPU_EXACT, IPS2_TIMER_MONOTONIC);
    s.h.pid = s.h.tid = 4245;
    calls(&s, 2, 1);
    {
        /* A PAD skipping 7 words: its own 2, then 5 words of leftovers
         * that are not records (non-zero, so not an end either). */
        static const uint64_t junk[5] = {0xdeadbeef, 0x1234, 0xffffffffffffffffULL, 3, 0x80};
        put(&s, IPS2_EV_PAD, 0, 7 * 8, NULL, 0);
        memcpy(s.words + s.n, junk, sizeof(junk));
        s.n += 5;
    }
    calls(&s, 2, 1);
    put(&s, IPS2_EV_THREAD_EXIT, 1, IPS2_EXIT_CALL, NULL, 0);
    write_stream(&s, "4245.0.4245.raw", 1, 0, 0);

    /* Short lock records: two objects in one slot, one in another; long
     * records bind the slots, one-word ones use them, holds in between;
     * counted holds of the first object (LOCK_COUNTED). */
    begin(&s, IPS2_STREAM_THREAD, IPS2_CPU_INTERP, IPS2_TIMER_TSC);
    s.h.features |= IPS2_FEAT_SHORT_LOCKS | IPS2_FEAT_LOCK_COUNTS;
    s.h.pid = s.h.tid = 4246;
    {
        uint64_t mono = s.h.ref_mono_ns, a = 0x555555558040, b = a + 8,
                 c = IPS2_SYNC_KEY_SHARED | 3;
        while (IPS2_LOCK_SLOT(b) != IPS2_LOCK_SLOT(a))
            b += 8;
        put(&s, IPS2_EV_SYNC, 1, 0, &mono, 1);
        uint64_t seq = 4;
        put(&s, IPS2_EV_LOCK_ACQUIRED, 0, a, &seq, 1);
        put_lock_word(&s, IPS2_EV_LOCK_RELEASE_SHORT, IPS2_LOCK_SLOT(a), 1, 0);
        for (unsigned i = 0; i < 5; i++)
            put_lock_word(&s, IPS2_EV_LOCK_HELD_SHORT, IPS2_LOCK_SLOT(a), i % 2, 30 + i);
        uint64_t counted[2] = {5000, 4999};
        put(&s, IPS2_EV_LOCK_COUNTED, 0, a, counted, 2);
        put_short(&s, IPS2_EV_ENTER_SHORT, 0x1000);
        put(&s, IPS2_EV_LOCK_RELEASE, 0, b, &seq, 1);
        put_lock_word(&s, IPS2_EV_LOCK_ACQUIRED_SHORT, IPS2_LOCK_SLOT(b), 3, 0);
        uint64_t waited[2] = {9, s.timer - 500};
        put(&s, IPS2_EV_LOCK_ACQUIRED, 1, c, waited, 2);
        put_lock_word(&s, IPS2_EV_LOCK_RELEASE_SHORT, IPS2_LOCK_SLOT(c), 1, 0);
        put_lock_word(&s, IPS2_EV_LOCK_HELD_SHORT, IPS2_LOCK_SLOT(b), 63, 1000);
        put_short(&s, IPS2_EV_EXIT_SHORT, 0x1000);
        mono += 2500;
        put(&s, IPS2_EV_SYNC, 1, 0, &mono, 1);
        put_lock_word(&s, IPS2_EV_LOCK_ACQUIRED_SHORT, IPS2_LOCK_SLOT(c), 67108863, 0);
    }
    write_stream(&s, "4246.0.4246.raw", 1, 0, 0);

    /* The process stream: the module map of image 0 of pid 4242. */
    begin(&s, IPS2_STREAM_PROCESS, IPS2_CPU_EXACT, IPS2_TIMER_MONOTONIC);
    module(&s, 0x555555554000, 0x555555554000, 0x555555559000, "/usr/bin/seed");
    module(&s, 0x7ffff7dc0000, 0x7ffff7de8000, 0x7ffff7f9d000, "/lib/x86_64-linux-gnu/libc.so.6");
    module(&s, 0x7ffff7fc1000, 0x7ffff7fc1000, 0x7ffff7fc3000, "linux-vdso.so.1");
    module(&s, 0x7ffff7fc5000, 0x7ffff7fc5000, 0x7ffff7ff0000, "/lib64/ld-linux-x86-64.so.2");
    write_stream(&s, "4242.0.proc.raw", 1, 0, 0);
    pack("4242.0.proc.raw", "4242.0.proc.ips2");
    return 0;
}
