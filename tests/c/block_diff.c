/* A transcript of inflate() with Z_BLOCK over many streams, as zran-style random-access tools
 * use it: for each case in the file named by the first argument (records of a 4-byte
 * little-endian length, a windowBits byte (signed), 4-byte input and output piece sizes, then
 * the stream), inflate is called with Z_BLOCK (or Z_TREES if the second argument is "trees")
 * on pieces of those sizes until it ends or fails. Each block boundary it stops at (data_type
 * bit 7) prints [the input and output totals there, the unused bits of the last input byte,
 * the last-block bit and inflateMark()], each end of a block header it stops at (bit 8,
 * Z_TREES only) the same in braces; then the return code and the output's length and hash.
 *
 * Built once against the system zlib.h; run with the system libz and with ours preloaded, the
 * two transcripts must be identical (tests/tests/zlib_block.rs). */
#define ZLIB_CONST
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cases.h"

int main(int argc, char **argv) {
    long size;
    unsigned char *all = argc >= 2 ? read_all(argv[1], &size) : NULL;
    if (all == NULL)
        return 2;
    int flush = argc == 3 && strcmp(argv[2], "trees") == 0 ? Z_TREES : Z_BLOCK;
    static unsigned char out[1 << 20];
    for (long at = 0, n = 0; at < size; n++) {
        unsigned long len = get32(all + at), ipiece = get32(all + at + 5),
                      opiece = get32(all + at + 9);
        int wbits = (signed char)all[at + 4];
        const unsigned char *src = all + at + 13;
        at += 13 + len;
        z_stream s;
        memset(&s, 0, sizeof s);
        printf("case %ld: init %d", n, inflateInit2(&s, wbits));
        unsigned long long hash = 1469598103934665603ULL;
        unsigned long pos = 0;
        int ret = Z_OK, stalls = 0;
        while (ret == Z_OK || (ret == Z_BUF_ERROR && stalls < 2)) {
            unsigned long in = len - pos < ipiece ? len - pos : ipiece;
            s.next_in = src + pos;
            s.avail_in = (unsigned)in;
            s.next_out = out;
            s.avail_out = (unsigned)opiece;
            ret = inflate(&s, flush);
            pos += in - s.avail_in;
            for (unsigned long i = 0; i < opiece - s.avail_out; i++) {
                hash ^= out[i];
                hash *= 1099511628211ULL;
            }
            stalls = ret == Z_BUF_ERROR ? stalls + 1 : 0;
            if (ret >= 0 && (s.data_type & 384)) {
                int tree = s.data_type & 256;
                printf(" %c%lu %lu %d%s m%ld%c", tree ? '{' : '[', s.total_in, s.total_out,
                       s.data_type & 7, s.data_type & 64 ? " last" : "", inflateMark(&s),
                       tree ? '}' : ']');
            }
        }
        printf(" -> %d out %lu hash %016llx\n", ret, s.total_out, hash);
        inflateEnd(&s);
    }
    return 0;
}
