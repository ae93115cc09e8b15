/* A seek still pending when gzdirect() first looks at a plain file: the bytes read next must
 * be those at the position sought. zlib 1.2.13 and 1.3 return the file's first bytes there
 * (gzdirect buffers them in front of the seek, and the gzgetc() macro and function serve the
 * buffer without looking for a pending seek); the drop-in passes over them as gzseek would.
 * Prints what each call returned, one line each.
 * Usage: gz_seek_look DIR */
#include <zlib.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2 || chdir(argv[1]) != 0)
        return 2;
    gzFile w = gzopen("plain.txt", "wbT");
    for (int i = 0; i < 975; i++)
        gzputc(w, 'a' + i % 26);
    gzclose(w);
    for (unsigned size = 8; size <= 65536; size *= 8) {
        gzFile f = gzopen("plain.txt", "rb");
        gzbuffer(f, size);
        printf("buffer %u: seek %ld", size, (long)gzseek(f, 197, SEEK_SET));
        printf(" direct %d tell %ld", gzdirect(f), (long)gztell(f));
        int c = gzgetc(f); /* the macro */
        printf(" getc %c tell %ld", c, (long)gztell(f));
        c = gzgetc_(f);
        printf(" getc_ %c tell %ld", c, (long)gztell(f));
        char b[4] = {0};
        int n = gzread(f, b, 3);
        printf(" read %d %s tell %ld\n", n, b, (long)gztell(f));
        gzclose(f);
    }
    return 0;
}
