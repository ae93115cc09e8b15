/* The cases files that block_diff.c and infback_diff.c read: records the Rust tests wrote,
 * little-endian lengths followed by bytes, read whole into memory. */
#include <stdio.h>
#include <stdlib.h>

/* The 4-byte little-endian number at p. */
static unsigned long get32(const unsigned char *p) {
    return p[0] | (unsigned long)p[1] << 8 | (unsigned long)p[2] << 16 | (unsigned long)p[3] << 24;
}

/* The whole file at path (its length in *size), or NULL. */
static unsigned char *read_all(const char *path, long *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *all = malloc(*size + 1);
    if (all == NULL || fread(all, 1, *size, f) != (size_t)*size) {
        fclose(f);
        return NULL;
    }
    fclose(f);
    return all;
}
