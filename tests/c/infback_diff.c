/* A transcript of inflateBack over many raw streams: for each case in the file named by the
 * argument (records of a 4-byte little-endian length, the windowBits byte, a 4-byte input
 * piece size, then the stream), the stream is fed to inflateBack through an in() callback in
 * pieces of that size, and out() hashes what it is given. One line per case: the return code,
 * the bytes out() received and their hash, and, unless the stream was bad (Z_DATA_ERROR, whose
 * stopping point within the input is not specified), the input left unused.
 *
 * Built once against the system zlib.h; run with the system libz and with ours preloaded, the
 * two transcripts must be identical (tests/tests/zlib_infback.rs). */
#define ZLIB_CONST
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cases.h"

static const unsigned char *src;
static unsigned long srclen, piece, pos;
static unsigned long long hash;
static unsigned long total;

static unsigned in_fn(void *desc, z_const unsigned char **p) {
    (void)desc;
    unsigned long n = srclen - pos;
    if (n > piece)
        n = piece;
    *p = src + pos;
    pos += n;
    return (unsigned)n;
}

static int out_fn(void *desc, unsigned char *p, unsigned n) {
    (void)desc;
    for (unsigned i = 0; i < n; i++) {
        hash ^= p[i];
        hash *= 1099511628211ULL;
    }
    total += n;
    return 0;
}

int main(int argc, char **argv) {
    long size;
    unsigned char *all = argc == 2 ? read_all(argv[1], &size) : NULL;
    if (all == NULL)
        return 2;
    static unsigned char window[1 << 15];
    for (long at = 0, n = 0; at < size; n++) {
        srclen = get32(all + at);
        int wbits = all[at + 4];
        piece = get32(all + at + 5);
        src = all + at + 9;
        at += 9 + srclen;
        z_stream s;
        memset(&s, 0, sizeof s);
        int init = inflateBackInit(&s, wbits, window);
        pos = 0;
        hash = 1469598103934665603ULL;
        total = 0;
        int ret = inflateBack(&s, in_fn, NULL, out_fn, NULL);
        printf("case %ld: init %d inflateBack %d out %lu hash %016llx", n, init, ret, total, hash);
        if (ret != Z_DATA_ERROR)
            printf(" unused %lu", s.next_in == NULL ? 0 : s.avail_in + (srclen - pos));
        printf("\n");
        inflateBackEnd(&s);
    }
    return 0;
}
