/* Exercises zlib's gz* file API as a C program built against the system zlib.h: writing
 * (gzputs, gzputc, gzprintf, a 3 MB gzwrite, append mode), reading back (gzgets, the gzgetc
 * macro, gzungetc, gzread, concatenated members, gzeof, gzseek forward and backward, gztell,
 * gzrewind), transparent reading and writing, gzdopen, a truncated file and an empty file.
 * Usage: gz_api DIR  (works inside DIR; leaves gzt.out.gz and empty.gz there for the caller). */
#include <zlib.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "FAIL line %d: %s\n", __LINE__, #c); return 1; } } while (0)
int main(int argc, char **argv) {
    const char *path = "gzt.out.gz";
    if (argc < 2 || chdir(argv[1]) != 0) { fprintf(stderr, "usage: gz_api DIR\n"); return 2; }
    char buf[1000]; int err;
    gzFile f = gzopen(path, "wb9");
    CHECK(f != NULL);
    CHECK(gzputs(f, "hello\n") == 6);
    CHECK(gzputc(f, 'x') == 'x');
    CHECK(gzprintf(f, "-%d-%s-%5.2f\n", 42, "abc", 3.14159) == 14);
    static unsigned char big[3000000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (unsigned char)((i * 7) ^ (i >> 9));
    CHECK(gzwrite(f, big, sizeof big) == (int)sizeof big);
    CHECK(gztell(f) == 6 + 1 + 14 + (long)sizeof big);
    CHECK(gzclose(f) == Z_OK);
    /* append a second member */
    f = gzopen(path, "ab");
    CHECK(gzputs(f, "second member\nlast line") == 23);
    CHECK(gzclose(f) == Z_OK);
    /* read back */
    f = gzopen(path, "rb");
    CHECK(f != NULL);
    CHECK(gzdirect(f) == 0);
    CHECK(gzgets(f, buf, sizeof buf) != NULL && strcmp(buf, "hello\n") == 0);
    int c = gzgetc(f);           /* the macro */
    CHECK(c == 'x');
    CHECK(gzungetc(c, f) == 'x');
    CHECK(gzgetc(f) == 'x');
    CHECK(gzgets(f, buf, sizeof buf) != NULL && strcmp(buf, "-42-abc- 3.14\n") == 0);
    static unsigned char back[3000000];
    CHECK(gzread(f, back, sizeof back) == (int)sizeof back);
    CHECK(memcmp(back, big, sizeof big) == 0);
    CHECK(gzgets(f, buf, sizeof buf) != NULL && strcmp(buf, "second member\n") == 0);
    CHECK(gzgets(f, buf, 5) != NULL && strcmp(buf, "last") == 0);
    CHECK(gzread(f, buf, 100) == 5 && memcmp(buf, " line", 5) == 0);
    CHECK(gzread(f, buf, 100) == 0);
    CHECK(gzeof(f) == 1);
    CHECK(gzseek(f, 7, SEEK_SET) == 7);
    CHECK(gzgetc(f) == '-');
    CHECK(gztell(f) == 8);
    CHECK(gzseek(f, 100, SEEK_CUR) == 108);
    CHECK(gzread(f, buf, 10) == 10 && memcmp(buf, big + 108 - 21, 10) == 0);
    CHECK(gzrewind(f) == 0);
    CHECK(gzgetc(f) == 'h');
    gzerror(f, &err); CHECK(err == Z_OK);
    CHECK(gzclose(f) == Z_OK);
    /* transparent read of a plain file */
    FILE *p = fopen("plain.txt", "w"); fputs("plain text\nline2\n", p); fclose(p);
    f = gzopen("plain.txt", "r");
    CHECK(gzread(f, buf, 100) == 17 && memcmp(buf, "plain text\nline2\n", 17) == 0);
    CHECK(gzdirect(f) == 1);
    CHECK(gzclose(f) == Z_OK);
    /* gzdopen + transparent write */
    int fd = open("t.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    f = gzdopen(fd, "wT");
    CHECK(gzputs(f, "raw") == 3);
    CHECK(gzclose(f) == Z_OK);
    f = gzopen("t.txt", "r"); CHECK(gzread(f, buf, 10) == 3); gzclose(f);
    /* truncated file */
    {
        FILE *in = fopen("gzt.out.gz", "rb"), *out = fopen("trunc.gz", "wb");
        char t[1000];
        size_t k = fread(t, 1, sizeof t, in);
        fwrite(t, 1, k, out);
        fclose(in);
        fclose(out);
    }
    f = gzopen("trunc.gz", "r");
    int n = gzread(f, back, sizeof back);
    CHECK(n > 0);
    CHECK(gzread(f, back, sizeof back) == 0); /* zlib reports the truncation once */
    const char *m = gzerror(f, &err);
    CHECK(err == Z_BUF_ERROR);
    CHECK(strstr(m, "unexpected end of file") != NULL);
    CHECK(gzclose(f) == Z_BUF_ERROR);
    /* empty file: header+trailer */
    f = gzopen("empty.gz", "w"); CHECK(gzclose(f) == Z_OK);
    f = gzopen("missing/dir/x.gz", "r"); CHECK(f == NULL);
    printf("gz ok\n");
    return 0;
}
