/* A transcript of zlib's gzip header calls: deflateSetHeader writing members with every mix of
 * FTEXT, FHCRC, FEXTRA, FNAME and FCOMMENT (fields of 0 to 40 bytes), and inflateGetHeader
 * reading them back with windowBits 31 and 47, all at once and a byte at a time, into
 * caller buffers of 0, 5, 10 and 100 bytes (fields longer than their buffer are cut, text
 * without its zero). Each line gives the header bytes written, inflate's return code and
 * every gz_header field, buffers included; then a zlib stream read as raw and as zlib only
 * (inflateGetHeader: Z_STREAM_ERROR), as gzip only (not gzip: done = -1, then the error) and
 * with automatic detection (done = -1); last, a stream given no header right after one given
 * a name and a comment (zlib's default header).
 *
 * Built once against the system zlib.h; run with the system libz and with ours preloaded, the
 * two transcripts must be identical (tests/tests/zlib_header.rs). Only header bytes are
 * printed, never compressed data. */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

static void hex(const char *tag, const unsigned char *p, int n) {
    printf(" %s[", tag);
    for (int i = 0; i < n; i++)
        printf("%02x", p[i]);
    printf("]");
}

/* Writes a member of "hello ..." with the header fields chosen; returns its length and the
 * header's in *hlen. */
static int member(unsigned char *out, int cap, int flags, int nlen, int clen, int xlen,
                  int *hlen) {
    static unsigned char name[64], comm[64], extra[64];
    for (int i = 0; i < nlen; i++)
        name[i] = 'a' + i % 26;
    name[nlen] = 0;
    for (int i = 0; i < clen; i++)
        comm[i] = 'A' + i % 26;
    comm[clen] = 0;
    for (int i = 0; i < xlen; i++)
        extra[i] = (unsigned char)(7 * i);
    z_stream s;
    memset(&s, 0, sizeof s);
    deflateInit2(&s, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
    gz_header h;
    memset(&h, 0, sizeof h);
    h.text = flags & 1;
    h.hcrc = (flags >> 1) & 1;
    h.time = 0x12345678;
    h.os = 3;
    if (flags & 4) {
        h.extra = extra;
        h.extra_len = xlen;
    }
    if (flags & 8)
        h.name = name;
    if (flags & 16)
        h.comment = comm;
    printf("set %d", deflateSetHeader(&s, &h));
    const char *msg = "hello hello hello hello";
    s.next_in = (unsigned char *)msg;
    s.avail_in = (unsigned)strlen(msg);
    s.next_out = out;
    s.avail_out = cap;
    deflate(&s, Z_FINISH);
    deflateEnd(&s);
    *hlen = 10 + (flags & 4 ? 2 + xlen : 0) + (flags & 8 ? nlen + 1 : 0) +
            (flags & 16 ? clen + 1 : 0) + (flags & 2 ? 2 : 0);
    return cap - (int)s.avail_out;
}

int main(void) {
    unsigned char buf[4096], out[256];
    const int sizes[] = {0, 1, 5, 9, 10, 11, 40};
    const int maxes[] = {0, 5, 10, 100};
    for (int flags = 0; flags < 32; flags++)
        for (int si = 0; si < 7; si++)
            for (int mi = 0; mi < 4; mi++)
                for (int bytewise = 0; bytewise < 2; bytewise++)
                    for (int wbits = 31; wbits <= 47; wbits += 16) {
                        int hlen;
                        int n = member(buf, sizeof buf, flags, sizes[si], sizes[(si + 2) % 7],
                                       sizes[(si + 4) % 7], &hlen);
                        hex("header", buf, hlen);
                        int max = maxes[mi];
                        z_stream s;
                        memset(&s, 0, sizeof s);
                        inflateInit2(&s, wbits);
                        gz_header h;
                        memset(&h, 0x55, sizeof h);
                        unsigned char name[128], comm[128], extra[128];
                        memset(name, 0x77, sizeof name);
                        memset(comm, 0x77, sizeof comm);
                        memset(extra, 0x77, sizeof extra);
                        h.name = name;
                        h.name_max = max;
                        h.comment = comm;
                        h.comm_max = max;
                        h.extra = extra;
                        h.extra_max = max;
                        printf(" max %d bytewise %d wbits %d get %d", max, bytewise, wbits,
                               inflateGetHeader(&s, &h));
                        int pos = 0, ret = Z_OK;
                        while (pos < n && ret == Z_OK) {
                            unsigned chunk = bytewise ? 1 : n - pos;
                            s.next_in = buf + pos;
                            s.avail_in = chunk;
                            s.next_out = out;
                            s.avail_out = sizeof out;
                            ret = inflate(&s, Z_NO_FLUSH);
                            pos += chunk - s.avail_in;
                        }
                        printf(" inflate %d done %d text %d time %lx xflags %d os %d hcrc %d "
                               "extra_len %u null %d%d%d",
                               ret, h.done, h.text, h.time, h.xflags, h.os, h.hcrc, h.extra_len,
                               h.extra == NULL, h.name == NULL, h.comment == NULL);
                        hex("extra", extra, max + 1);
                        hex("name", name, max + 1);
                        hex("comment", comm, max + 1);
                        printf("\n");
                        inflateEnd(&s);
                    }
    unsigned char z[64];
    uLongf zlen = sizeof z;
    compress(z, &zlen, (const unsigned char *)"abc", 3);
    const int zwbits[] = {-15, 15, 31, 47};
    for (int i = 0; i < 4; i++) {
        int wbits = zwbits[i];
        z_stream s;
        memset(&s, 0, sizeof s);
        inflateInit2(&s, wbits);
        gz_header h;
        memset(&h, 0, sizeof h);
        int get = inflateGetHeader(&s, &h);
        s.next_in = z;
        s.avail_in = (unsigned)zlen;
        s.next_out = out;
        s.avail_out = sizeof out;
        int ret = inflate(&s, Z_NO_FLUSH);
        printf("zlib stream, windowBits %d: get %d inflate %d done %d\n", wbits, get, ret, h.done);
        inflateEnd(&s);
    }
    /* A stream given no header, right after one given a name and a comment on this thread:
     * zlib's default header (nothing of the first stream's may carry over to the second). */
    int hlen;
    member(buf, sizeof buf, 8 | 16, 5, 5, 0, &hlen);
    z_stream s;
    memset(&s, 0, sizeof s);
    deflateInit2(&s, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
    const char *msg = "hello hello hello hello";
    s.next_in = (unsigned char *)msg;
    s.avail_in = (unsigned)strlen(msg);
    s.next_out = buf;
    s.avail_out = sizeof buf;
    printf(" then a stream without a header: deflate %d", deflate(&s, Z_FINISH));
    deflateEnd(&s);
    hex("header", buf, 10);
    printf("\n");
    /* inflateReset forgets the header structure (zlib sets head to NULL): the reset writes
     * nothing into it, and the next member's fields do not go to its buffers. */
    {
        int n2 = member(buf, sizeof buf, 8, 9, 0, 0, &hlen);
        z_stream r;
        memset(&r, 0, sizeof r);
        inflateInit2(&r, 31);
        gz_header h;
        unsigned char name[64];
        memset(&h, 0, sizeof h);
        memset(name, 0x77, sizeof name);
        h.name = name;
        h.name_max = sizeof name;
        inflateGetHeader(&r, &h);
        r.next_in = buf;
        r.avail_in = (unsigned)n2;
        r.next_out = out;
        r.avail_out = sizeof out;
        int first = inflate(&r, Z_NO_FLUSH);
        h.done = 7;
        memset(name, 0x77, sizeof name);
        int reset = inflateReset(&r);
        int done_after_reset = h.done;
        r.next_in = buf;
        r.avail_in = (unsigned)n2;
        r.next_out = out;
        r.avail_out = sizeof out;
        int second = inflate(&r, Z_NO_FLUSH);
        printf("after inflateReset: inflate %d reset %d done %d then inflate %d done %d", first,
               reset, done_after_reset, second, h.done);
        hex("name", name, 4);
        printf("\n");
        inflateEnd(&r);
    }
    /* inflateInit2 with windowBits out of range leaves strm->state NULL (zlib frees what it
     * allocated), so ending the stream is a clean Z_STREAM_ERROR, not a wild pointer. */
    {
        z_stream g;
        memset(&g, 0xAA, sizeof g);
        g.zalloc = Z_NULL;
        g.zfree = Z_NULL;
        g.opaque = Z_NULL;
        g.next_in = Z_NULL;
        g.avail_in = 0;
        int init = inflateInit2(&g, 7);
        printf("inflateInit2 windowBits 7: %d state null %d", init, g.state == Z_NULL);
        printf(" inflateEnd %d inflate %d\n", inflateEnd(&g), inflate(&g, Z_NO_FLUSH));
    }
    return 0;
}
