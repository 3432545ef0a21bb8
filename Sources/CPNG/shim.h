#ifndef MEDIAINDEX_CPNG_SHIM_H
#define MEDIAINDEX_CPNG_SHIM_H
// libpng's simplified `png_image` API, which catches libpng's longjmp errors itself.
#include <png.h>

// Function-like and composite macros Swift cannot import.
static inline png_uint_32 mediaindex_png_format_rgba(void) { return PNG_FORMAT_RGBA; }
static inline png_uint_32 mediaindex_png_format_rgb(void) { return PNG_FORMAT_RGB; }
static inline png_uint_32 mediaindex_png_image_version(void) { return PNG_IMAGE_VERSION; }
static inline int mediaindex_png_image_failed(png_imagep image) { return PNG_IMAGE_FAILED(*image); }
#endif
