/* gzprintf and gzvprintf: the two variadic entry points of the zlib ABI, which stable Rust
 * cannot define. They format into a heap buffer of exactly the needed size (zlib truncates to
 * its gzbuffer size and fails instead) and hand the bytes to our gzwrite. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define Z_STREAM_ERROR (-2)
#define Z_MEM_ERROR (-4)

extern int gzwrite(void *file, const void *buf, unsigned len);
extern int gzputs(void *file, const char *s);
extern const char *gzerror(void *file, int *errnum);

int hz_gzvprintf(void *file, const char *format, va_list va) {
    va_list again;
    int len;
    char *buf;
    if (file == NULL || format == NULL)
        return Z_STREAM_ERROR;
    /* Like zlib, Z_STREAM_ERROR for a handle not open for writing or after an error (an empty
     * gzputs checks exactly that and does nothing else). */
    if (gzputs(file, "") < 0)
        return Z_STREAM_ERROR;
    va_copy(again, va);
    len = vsnprintf(NULL, 0, format, again);
    va_end(again);
    if (len < 0)
        return Z_STREAM_ERROR;
    if (len == 0)
        return 0;
    buf = malloc((size_t)len + 1);
    if (buf == NULL)
        return Z_MEM_ERROR;
    vsnprintf(buf, (size_t)len + 1, format, va);
    len = gzwrite(file, buf, (unsigned)len);
    free(buf);
    if (len == 0) {
        /* The write failed (gzwrite returns 0 then): zlib returns the file's error code. */
        int err;
        gzerror(file, &err);
        return err < 0 ? err : 0;
    }
    return len;
}
#ifndef HZ_NO_SYMVER
__asm__(".symver hz_gzvprintf, gzvprintf@@ZLIB_1.2.7.1");
#endif

/* Exported as gzprintf by a jump in printf.rs, so it stays unversioned as in zlib. */
int hz_c_gzprintf(void *file, const char *format, ...) {
    va_list va;
    int ret;
    va_start(va, format);
    ret = hz_gzvprintf(file, format, va);
    va_end(va);
    return ret;
}
