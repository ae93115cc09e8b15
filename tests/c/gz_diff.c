/* A transcript of zlib's gz* file API: every call's return value, gztell, gzeof, gzdirect and
 * error code, printed one per line, for reads of files written by other tools (gzip, pigz,
 * igzip, libdeflate-gzip; concatenated members, trailing garbage, truncated and corrupt
 * members, members cut inside the header after a bad method byte or inside the trailer after
 * a bad CRC, plain and empty files) with mixed gzgetc (the zlib.h macro) / gzgets / gzread /
 * gzfread / gzungetc calls, seeks and rewinds, and for writes in every mode (levels,
 * strategies, transparent, append, exclusive, gzdopen, gzsetparams, gzflush, forward seeks
 * that write zeros).
 *
 * Built once against the system zlib.h; run with the system libz and with ours, the two
 * transcripts must be identical (tests/tests/zlib_gz.rs). Nothing printed depends on the
 * compressed bytes a library produces, so a correct implementation matches line for line.
 * Usage: gz_diff DIR  (reads the inputs the test put in DIR, writes w_*.gz there), or
 * gz_diff DIR random SEED  (random call sequences; writes r_SEED.gz). */
#define _LARGEFILE64_SOURCE 1
#include <zlib.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long long H;
static void hb(const void *p, long n) {
    const unsigned char *b = p;
    for (long i = 0; i < n; i++) {
        H ^= b[i];
        H *= 1099511628211ULL;
    }
}
#define P(...) (printf(__VA_ARGS__), putchar('\n'))

static int errcode(gzFile f) {
    int e = 0;
    gzerror(f, &e);
    return e;
}

/* Reads the whole file with a repeating mix of calls; `verbose` prints every call. */
static void read_mixed(const char *name, unsigned bufsize, int verbose) {
    static const unsigned sizes[] = {1, 7, 100, 5000, 70000, 3, 65536, 200000, 0, 17};
    static unsigned char buf[300000];
    gzFile f = gzopen(name, "rb");
    P("== read %s buffer %u: open %d", name, bufsize, f != NULL);
    if (f == NULL)
        return;
    if (bufsize)
        P("gzbuffer %d", gzbuffer(f, bufsize));
    P("gzdirect %d", gzdirect(f));
    P("gzbuffer after first look %d", gzbuffer(f, 4096));
    H = 1469598103934665603ULL;
    long total = 0;
    for (int step = 0; step < 200000; step++) {
        int op = step % 6, r = 0, isread = 1;
        z_off_t before = gztell(f);
        if (op == 0) {
            r = gzgetc(f); /* the macro */
            if (r >= 0) {
                unsigned char c = (unsigned char)r;
                hb(&c, 1);
            }
        } else if (op == 1) {
            char line[80];
            char *s = gzgets(f, line, (step / 6) % 2 ? 80 : 2);
            r = s == NULL ? -1 : (int)(gztell(f) - before);
            if (s != NULL) {
                hb(line, r);
                hb(line + r, 1); /* the terminating NUL */
            }
        } else if (op == 2 || op == 5) {
            unsigned n = sizes[(step / 6 + op) % 10];
            r = gzread(f, buf, n);
            if (r > 0)
                hb(buf, r);
            if (n == 0)
                isread = 0;
        } else if (op == 3) {
            isread = 0;
            int c = gzgetc_(f);
            r = c < 0 ? c : gzungetc(c, f);
            if (c >= 0 && (step / 6) % 3 == 0)
                r = r * 1000 + gzungetc('A', f); /* a second push-back */
            if (c >= 0 && (step / 6) % 3 == 0) {
                int a = gzgetc(f);
                r = r * 1000 + a;
            }
        } else if (op == 4) {
            size_t k = gzfread(buf, 3, (step / 6) % 4 == 0 ? 1 : 700, f);
            r = (int)k;
            if (k > 0)
                hb(buf, (long)k * 3);
            if (k == 0 && gzeof(f) && gztell(f) > before) /* partial item consumed */
                hb(buf, gztell(f) - before);
        }
        if (gztell(f) > total)
            total = gztell(f);
        if (verbose)
            P("step %d op %d -> %d tell %ld eof %d err %d", step, op, r, (long)gztell(f),
              gzeof(f), errcode(f));
        if (isread && r <= 0 && (gzeof(f) || (errcode(f) != Z_OK && errcode(f) != Z_BUF_ERROR))) {
            P("stopped at step %d op %d -> %d", step, op, r);
            break;
        }
    }
    int e;
    const char *msg = gzerror(f, &e);
    P("hash %016llx total %ld eof %d err %d", H, total, gzeof(f), e);
    if (e == Z_OK || e == Z_BUF_ERROR)
        P("msg '%s'", msg);
    if (e == Z_OK || e == Z_BUF_ERROR) {
        /* seeks, all relative to what was read */
        P("seek set 0 -> %ld", (long)gzseek(f, 0, SEEK_SET));
        H = 1469598103934665603ULL;
        P("read 10 -> %d", gzread(f, buf, 10));
        hb(buf, 10);
        P("seek set half -> %ld", (long)gzseek(f, total / 2, SEEK_SET));
        P("seek cur -5 -> %ld", (long)gzseek(f, -5, SEEK_CUR));
        P("seek cur +3 -> %ld", (long)gzseek(f, 3, SEEK_CUR));
        P("tell %ld", (long)gztell(f));
        int r = gzread(f, buf, 50);
        P("read 50 -> %d", r);
        if (r > 0)
            hb(buf, r);
        P("seek end -> %ld", (long)gzseek(f, 0, SEEK_END));
        P("seek before start -> %ld", (long)gzseek(f, -total - 10, SEEK_CUR));
        P("seek past end -> %ld", (long)gzseek(f, total + 100, SEEK_SET));
        P("tell %ld eof %d", (long)gztell(f), gzeof(f));
        r = gzread(f, buf, 10);
        P("read past end -> %d tell %ld eof %d", r, (long)gztell(f), gzeof(f));
        P("getc past end -> %d", gzgetc(f));
        gzclearerr(f);
        P("after clearerr eof %d err %d", gzeof(f), errcode(f));
        r = gzrewind(f);
        P("rewind %d tell %ld eof %d", r, (long)gztell(f), gzeof(f));
        r = gzread(f, buf, 1000);
        P("read 1000 -> %d", r);
        if (r > 0)
            hb(buf, r);
        P("seek hash %016llx", H);
    }
    P("gzwrite on a read handle %d", gzwrite(f, "x", 1));
    P("gzprintf on a read handle %d", gzprintf(f, "%d", 5));
    P("gzputs on a read handle %d", gzputs(f, "x"));
    P("gzputc on a read handle %d", gzputc(f, 'x'));
    P("gzflush on a read handle %d", gzflush(f, Z_SYNC_FLUSH));
    P("gzclose_w on a read handle %d", gzclose_w(f));
    P("gzclose %d", gzclose(f));
}

/* Plain-file reading: the offsets are the same in any implementation. */
static void read_plain(const char *name) {
    char buf[100];
    gzFile f = gzopen64(name, "r");
    P("== plain %s open %d", name, f != NULL);
    P("offset %ld direct %d", (long)gzoffset(f), gzdirect(f));
    int r = gzread(f, buf, 10);
    P("read 10 -> %d offset %ld tell %ld", r, (long)gzoffset(f), (long)gztell(f));
    P("seek 5 -> %ld", (long)gzseek(f, 5, SEEK_SET));
    r = gzgetc(f);
    P("getc %d tell %ld", r, (long)gztell(f));
    P("seek64 cur -3 -> %ld", (long)gzseek64(f, -3, SEEK_CUR));
    P("getc %d", gzgetc(f));
    P("offset64 %ld tell64 %ld", (long)gzoffset64(f), (long)gztell64(f));
    P("gzclose_r %d", gzclose_r(f));
}

static const char *text(int i) {
    static char line[64];
    snprintf(line, sizeof line, "line %d: the quick brown fox %d\n", i, i * i);
    return line;
}

/* Writes a file with mode `mode` (`variant` adds calls), then reads it back. */
static void write_one(const char *name, const char *mode, int variant) {
    static unsigned char big[3000000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (unsigned char)("abcdefgh"[i % 8] + ((i * 2654435761u) >> 29) * (i % 3 == 0));
    gzFile f = gzopen(name, mode);
    P("== write %s mode %s variant %d: open %d", name, mode, variant, f != NULL);
    if (f == NULL)
        return;
    if (variant == 1)
        P("gzbuffer 100 %d", gzbuffer(f, 100));
    P("gzdirect %d", gzdirect(f));
    P("puts %d", gzputs(f, "hello\n"));
    P("putc %d", gzputc(f, 'x'));
    P("putc 0x1ff %d", gzputc(f, 0x1ff));
    P("printf %d", gzprintf(f, "-%d-%s-%5.2f\n", 42, "abc", 3.14159));
    P("gzbuffer now %d", gzbuffer(f, 100));
    for (int i = 0; i < 200; i++)
        if (gzputs(f, text(i)) != (int)strlen(text(i)))
            P("puts %d failed", i);
    P("tell %ld", (long)gztell(f));
    if (variant == 2) {
        P("setparams 1 %d", gzsetparams(f, 1, Z_DEFAULT_STRATEGY));
        P("setparams bad %d", gzsetparams(f, 1, 99));
        P("write big %d", gzwrite(f, big, sizeof big));
        P("setparams 9 filtered %d", gzsetparams(f, 9, Z_FILTERED));
        P("flush sync %d", gzflush(f, Z_SYNC_FLUSH));
        P("flush full %d", gzflush(f, Z_FULL_FLUSH));
        P("flush bad %d", gzflush(f, 17));
    }
    P("fwrite %lu", (unsigned long)gzfwrite(big, 1000, 7, f));
    P("fwrite 0 %lu", (unsigned long)gzfwrite(big, 0, 7, f));
    P("write 0 %d", gzwrite(f, big, 0));
    P("seek fwd -> %ld", (long)gzseek(f, 1000, SEEK_CUR));
    P("tell after seek %ld", (long)gztell(f));
    P("seek back -> %ld", (long)gzseek(f, -10, SEEK_CUR));
    z_off_t t = gztell(f);
    P("seek set fwd -> %ld", (long)gzseek(f, t + 5, SEEK_SET));
    int r = gzputs(f, "after the hole\n");
    P("puts after seek %d tell %ld", r, (long)gztell(f));
    if (variant == 3) {
        P("flush finish %d", gzflush(f, Z_FINISH));
        P("flush finish again %d", gzflush(f, Z_FINISH));
        P("puts new member %d", gzputs(f, "in a second member\n"));
    }
    r = gzread(f, big, 10);
    P("gzread on a write handle %d eof %d", r, gzeof(f));
    P("gzgetc on a write handle %d", gzgetc(f));
    P("gzungetc on a write handle %d", gzungetc('a', f));
    P("gzrewind on a write handle %d", gzrewind(f));
    P("gzclose_r on a write handle %d", gzclose_r(f));
    P("seek pending at close -> %ld", (long)gzseek(f, 3, SEEK_CUR));
    P("err %d", errcode(f));
    P("gzclose %d", gzclose(f));
    read_mixed(name, 0, 0);
}

/* Random call sequences (mode "random SEED"): reads of every input and writes in a random
 * mode, each call's result printed. */
static unsigned long long rng;
static unsigned rnd(unsigned n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static void random_read(const char *name) {
    static unsigned char buf[70000];
    gzFile f = gzopen(name, "rb");
    P("== random read %s open %d", name, f != NULL);
    if (f == NULL)
        return;
    if (rnd(3) == 0)
        P("gzbuffer %d", gzbuffer(f, 8 + rnd(3000)));
    H = 1469598103934665603ULL;
    int did_read = 0, seeking = 0;
    for (int i = 0; i < 300; i++) {
        unsigned op = rnd(12);
        /* gzungetc only right after a successful read: zlib 1.2.13 crashes on one before
           the first read and differs from 1.3.1 on one right after gzrewind */
        if (op == 2 && !did_read)
            op = 0;
        /* no gzdirect between a seek and the next read: on a plain file zlib then returns the
           file's first bytes instead of those sought, where we return the right ones
           (gz_seek_look.c) */
        if (op == 10 && seeking)
            op = 11;
        if (op == 6 || op == 7)
            seeking = 1;
        else if (op <= 5 || op == 8)
            seeking = 0;
        long r = 0;
        z_off_t before = gztell(f);
        switch (op) {
        case 0: r = gzgetc(f); break;
        case 1: r = gzgetc_(f); break;
        case 2: r = gzungetc((int)rnd(256), f); break;
        case 3: {
            char *s = gzgets(f, (char *)buf, 1 + (int)rnd(200));
            r = s == NULL ? -1 : (long)(gztell(f) - before);
            if (s != NULL)
                hb(buf, r + 1);
            break;
        }
        case 4:
            r = gzread(f, buf, rnd(sizeof buf));
            if (r > 0)
                hb(buf, r);
            break;
        case 5:
            r = (long)gzfread(buf, 1 + rnd(5), rnd(3000), f);
            break;
        case 6: r = (long)gzseek(f, (z_off_t)rnd(400000), SEEK_SET); break;
        case 7: r = (long)gzseek(f, (z_off_t)rnd(40000) - 20000, SEEK_CUR); break;
        case 8: r = gzrewind(f); break;
        case 9: gzclearerr(f); break;
        case 10: r = gzdirect(f); break;
        default: r = (long)gztell64(f); break;
        }
        did_read = op != 2 && op <= 5 && r > 0;
        P("%d op %u -> %ld tell %ld eof %d err %d", i, op, r, (long)gztell(f), gzeof(f),
          errcode(f));
    }
    P("hash %016llx close %d", H, gzclose(f));
}

static void random_write(const char *name) {
    static const char *modes[] = {"w", "wb1", "wb9", "w0", "wh", "wR", "wF", "w6f", "wT", "a"};
    static unsigned char data[130000]; /* gzfwrite reads up to 4 * 30000 bytes */
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)("gz random data "[i % 15] ^ (rnd(8) == 0 ? rnd(256) : 0));
    const char *mode = modes[rnd(10)];
    gzFile f = gzopen(name, mode);
    P("== random write %s mode %s open %d", name, mode, f != NULL);
    if (rnd(3) == 0)
        P("gzbuffer %d", gzbuffer(f, 8 + rnd(3000)));
    /* a first write: zlib 1.2.13 writes uninitialized bytes for a seek before it */
    P("putc %d", gzputc(f, 'A'));
    for (int i = 0; i < 60; i++) {
        unsigned op = rnd(8);
        if (op == 6 && strcmp(mode, "wT") == 0)
            op = 1; /* zlib 1.3 refuses gzsetparams on a transparent write, 1.2.13 does not */
        long r = 0;
        switch (op) {
        case 0: r = gzwrite(f, data + rnd(1000), rnd(99000)); break;
        case 1: r = gzputc(f, (int)rnd(300)); break;
        case 2: r = gzputs(f, (const char *)"a line of text\n" + rnd(15)); break;
        case 3: r = gzprintf(f, "%d %s %x\n", (int)rnd(100000), "printf", rnd(1000)); break;
        case 4: r = gzflush(f, (int)rnd(6)); break;
        case 5: r = (long)gzseek(f, (z_off_t)rnd(5000) - 100, SEEK_CUR); break;
        case 6: r = gzsetparams(f, (int)rnd(12) - 1, (int)rnd(6)); break;
        default: r = (long)gzfwrite(data, 1 + rnd(4), rnd(30000), f); break;
        }
        P("%d op %u -> %ld tell %ld err %d", i, op, r, (long)gztell(f), errcode(f));
    }
    P("close %d", gzclose(f));
    f = gzopen(name, "r");
    static unsigned char back[1 << 20];
    H = 1469598103934665603ULL;
    long total = 0;
    int n;
    while ((n = gzread(f, back, sizeof back)) > 0) {
        hb(back, n);
        total += n;
    }
    P("read back %d total %ld hash %016llx close %d", n, total, H, gzclose(f));
}

int main(int argc, char **argv) {
    if (argc < 2 || chdir(argv[1]) != 0) {
        fprintf(stderr, "usage: gz_diff DIR [random SEED]\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    if (argc == 4 && strcmp(argv[2], "random") == 0) {
        rng = 0x9E3779B97F4A7C15ULL ^ strtoull(argv[3], NULL, 10) * 0xD1B54A32D192ED03ULL;
        const char *inputs[] = {"g1.gz",     "multi.gz", "garbage.gz", "trunc.gz",
                                "corrupt.gz", "plain.txt", "one.txt",    "big.gz",
                                "igzip.gz",   "libdeflate.gz"};
        random_read(inputs[rnd(10)]);
        random_read(inputs[rnd(10)]);
        char name[40];
        snprintf(name, sizeof name, "r_%s.gz", argv[3]);
        random_write(name);
        random_read(name);
        fflush(stdout);
        return 0;
    }
    /* misuse */
    P("gzopen no rwa %d", gzopen("x.gz", "9b") != NULL);
    P("gzopen r+ %d", gzopen("g1.gz", "r+") != NULL);
    P("gzopen rT %d", gzopen("g1.gz", "rT") != NULL);
    errno = 0;
    int opened = gzopen("missing/x.gz", "r") != NULL;
    P("gzopen missing %d errno %d", opened, errno);
    P("gzdopen -1 %d", gzdopen(-1, "r") != NULL);
    P("gzclose NULL %d", gzclose(NULL));
    P("gzerror NULL %d", gzerror(NULL, NULL) != NULL);
    P("gzread NULL %d", gzread(NULL, NULL, 1));
    P("gzwrite NULL %d", gzwrite(NULL, "", 1));
    P("gzeof NULL %d gzdirect NULL %d", gzeof(NULL), gzdirect(NULL));
    P("gztell NULL %ld gzseek NULL %ld", (long)gztell(NULL), (long)gzseek(NULL, 0, SEEK_SET));
    P("gzgets NULL %d", gzgets(NULL, NULL, 0) != NULL);
    P("gzbuffer NULL %d", gzbuffer(NULL, 100));
    /* A write that fails: gzprintf returns the file's error code (not 0, gzwrite's failure). */
    {
        gzFile full = gzopen("/dev/full", "wT");
        static char s5000[5001];
        memset(s5000, 'a', 5000);
        int first = gzprintf(full, "%s", s5000);
        int second = gzprintf(full, "%s", s5000);
        int err = 0;
        gzerror(full, &err);
        P("gzprintf to /dev/full %d %d err %d", first, second, err);
        gzclose(full);
    }

    /* reading */
    const char *inputs[] = {"g1.gz", "pigz.gz", "multi.gz", "garbage.gz", "zeros.gz",
                            "magic-garbage.gz", "trunc.gz", "corrupt.gz", "plain.txt",
                            "empty.txt", "one.txt", "empty-member.gz", "big.gz", "igzip.gz",
                            "libdeflate.gz", "cut-method.gz", "cut-trailer.gz"};
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        int small = strcmp(inputs[i], "big.gz") != 0;
        read_mixed(inputs[i], 0, small);
        read_mixed(inputs[i], 8, 0);
        read_mixed(inputs[i], 1000, 0);
    }
    read_plain("plain.txt");

    /* gzdopen at an offset: rewinding returns to where the descriptor was */
    {
        int fd = open("prefixed.gz", O_RDONLY);
        P("== gzdopen prefixed: lseek %ld", (long)lseek(fd, 7, SEEK_SET));
        gzFile f = gzdopen(fd, "rb");
        char buf[200];
        H = 1469598103934665603ULL;
        int n = gzread(f, buf, sizeof buf);
        hb(buf, n > 0 ? n : 0);
        P("read %d direct %d", n, gzdirect(f));
        P("rewind %d", gzrewind(f));
        n = gzread(f, buf, sizeof buf);
        hb(buf, n > 0 ? n : 0);
        P("read again %d hash %016llx", n, H);
        P("gzclose %d", gzclose(f));
        P("fd closed %d", close(fd) == -1 && errno == EBADF);
    }

    /* writing */
    write_one("w_default.gz", "wb", 0);
    write_one("w_small_buffer.gz", "wb6", 1);
    write_one("w_params.gz", "w", 2);
    write_one("w_members.gz", "w9", 3);
    write_one("w_level0.gz", "wb0", 0);
    write_one("w_huffman.gz", "wb9h", 0);
    write_one("w_rle.gz", "wbR", 0);
    write_one("w_fixed.gz", "wbF", 0);
    write_one("w_filtered.gz", "wb1f", 0);
    write_one("w_transparent.gz", "wT", 0);
    write_one("w_exclusive.gz", "wxe", 0);
    write_one("w_exclusive.gz", "wx", 0); /* exists now: NULL */
    write_one("append.gz", "ab", 0);      /* appends a member to the test's gzip file */
    {
        gzFile f = gzopen("append-plain.txt", "a");
        P("== append to plain: offset %ld", (long)gzoffset(f));
        P("gzclose %d", gzclose(f));
        int fd = open("dopen.gz", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        f = gzdopen(fd, "wb");
        P("== gzdopen write: puts %d", gzputs(f, "through a descriptor\n"));
        P("gzclose %d", gzclose(f));
        read_mixed("dopen.gz", 0, 1);
        fd = open("dopen-append.gz", O_WRONLY);
        f = gzdopen(fd, "a");
        P("== gzdopen append: offset %ld", (long)gzoffset(f));
        P("puts %d", gzputs(f, "appended through a descriptor\n"));
        P("gzclose %d", gzclose(f));
        read_mixed("dopen-append.gz", 0, 1);
        f = gzopen("w_empty.gz", "w");
        P("== empty write: gzclose %d", gzclose(f));
        read_mixed("w_empty.gz", 0, 1);
    }
    fflush(stdout);
    return 0;
}
