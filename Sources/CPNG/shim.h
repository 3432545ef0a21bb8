#ifndef MEDIAINDEX_CPNG_SHIM_H
#define MEDIAINDEX_CPNG_SHIM_H
// libpng's simplified `png_image` API, which catches libpng's longjmp errors itself.
#include <png.h>

// Function-like and composite macros Swift cannot import.
static inline png_uint_32 mediaindex_png_format_rgba(void) { return PNG_FORMAT_RGBA; }
static inline png_uint_32 mediaindex_png_format_rgb(void) { return PNG_FORMAT_RGB; }
static inline png_uint_32 mediaindex_png_image_version(void) { return PNG_IMAGE_VERSION; }
static inline int mediaindex_png_image_failed(png_imagep image) { return PNG_IMAGE_FAILED(*image); }

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct mediaindex_png_reader { const unsigned char *data; size_t size; size_t position; };

static void mediaindex_png_read(png_structp png, png_bytep out, size_t length) {
    struct mediaindex_png_reader *reader = (struct mediaindex_png_reader *)png_get_io_ptr(png);
    if (reader->size - reader->position < length) png_error(png, "truncated");
    memcpy(out, reader->data + reader->position, length);
    reader->position += length;
}
static void mediaindex_png_quiet(png_structp png, png_const_charp message) { (void)png; (void)message; }

/// The PNG's iCCP profile, decompressed (malloc'ed, the caller frees it; NULL when there
/// is none or it is unreadable). Reads the chunks before the first IDAT only; libpng's
/// errors longjmp back here, never into Swift. Wraps `png_read_info` and `png_get_iCCP`.
static inline unsigned char *mediaindex_png_read_icc(const unsigned char *data, size_t size, unsigned int *length) {
    *length = 0;
    struct mediaindex_png_reader reader = { data, size, 0 };
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, mediaindex_png_quiet, mediaindex_png_quiet);
    if (!png) return NULL;
    png_infop info = png_create_info_struct(png);
    unsigned char *volatile copy = NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        if (copy) free(copy);
        *length = 0;
        return NULL;
    }
    png_set_user_limits(png, 1u << 20, 1u << 20);
    png_set_chunk_malloc_max(png, 64u << 20);
    png_set_read_fn(png, &reader, mediaindex_png_read);
    png_read_info(png, info);
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 profileLength = 0;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &profileLength) && profile && profileLength > 0) {
        copy = (unsigned char *)malloc(profileLength);
        if (copy) { memcpy(copy, profile, profileLength); *length = profileLength; }
    }
    png_destroy_read_struct(&png, &info, NULL);
    return copy;
}
#endif
