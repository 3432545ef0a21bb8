#ifndef MEDIAINDEX_CTIFF_SHIM_H
#define MEDIAINDEX_CTIFF_SHIM_H
// libtiff: strips, tiles, every photometric and compression a camera or scanner writes.
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <tiffio.h>

// TIFFGetField is variadic, and so are libtiff's error handlers; Swift can neither call
// nor write those, so these wrap the few fields MediaThumbnails reads, one type each,
// and collect a handle's first error message.

static inline int mediaindex_tiff_get_u16(TIFF *tif, uint32_t tag, uint16_t *value) {
    return TIFFGetField(tif, tag, value);
}
static inline int mediaindex_tiff_get_u32(TIFF *tif, uint32_t tag, uint32_t *value) {
    return TIFFGetField(tif, tag, value);
}
/// An array field counted by a 32-bit count (the ICC profile, tag 34675).
static inline int mediaindex_tiff_get_bytes(TIFF *tif, uint32_t tag, uint32_t *count, void **data) {
    return TIFFGetField(tif, tag, count, data);
}
/// SubIFDs (tag 330): a 16-bit count and an array of 64-bit offsets.
static inline int mediaindex_tiff_get_subifds(TIFF *tif, uint16_t *count, uint64_t **offsets) {
    return TIFFGetField(tif, TIFFTAG_SUBIFD, count, offsets);
}

// TIFFSetField is variadic too. MediaThumbnails never writes a TIFF; its tests build
// fixtures with these.
static inline int mediaindex_tiff_set_u16(TIFF *tif, uint32_t tag, uint16_t value) {
    return TIFFSetField(tif, tag, (int)value);
}
static inline int mediaindex_tiff_set_u32(TIFF *tif, uint32_t tag, uint32_t value) {
    return TIFFSetField(tif, tag, value);
}
static inline int mediaindex_tiff_set_colormap(TIFF *tif, uint16_t *red, uint16_t *green, uint16_t *blue) {
    return TIFFSetField(tif, TIFFTAG_COLORMAP, red, green, blue);
}
static inline int mediaindex_tiff_set_extrasamples(TIFF *tif, uint16_t count, uint16_t *kinds) {
    return TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, count, kinds);
}
static inline int mediaindex_tiff_set_icc(TIFF *tif, uint32_t count, const void *profile) {
    return TIFFSetField(tif, TIFFTAG_ICCPROFILE, count, profile);
}
/// The WhitePoint tag's chromaticity (x, y); 0 when the directory has none.
static inline int mediaindex_tiff_get_whitepoint(TIFF *tif, float *x, float *y) {
    float *values = NULL;
    if (TIFFGetField(tif, TIFFTAG_WHITEPOINT, &values) != 1 || !values) return 0;
    *x = values[0]; *y = values[1];
    return 1;
}

/// A handle's first error message, kept for as long as the handle.
typedef struct { char text[512]; } mediaindex_tiff_message;

static int mediaindex_tiff_keep_first(TIFF *tif, void *user, const char *module, const char *format, va_list arguments) {
    (void)tif; (void)module;
    mediaindex_tiff_message *message = (mediaindex_tiff_message *)user;
    if (message && message->text[0] == 0) vsnprintf(message->text, sizeof message->text, format, arguments);
    return 1;  // handled: nothing reaches stderr
}
static int mediaindex_tiff_ignore(TIFF *tif, void *user, const char *module, const char *format, va_list arguments) {
    (void)tif; (void)user; (void)module; (void)format; (void)arguments;
    return 1;
}
static tmsize_t mediaindex_tiff_no_write(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle; (void)buffer; (void)size;
    return 0;
}
static int mediaindex_tiff_no_close(thandle_t handle) { (void)handle; return 0; }
static int mediaindex_tiff_no_map(thandle_t handle, void **base, toff_t *size) {
    (void)handle; (void)base; (void)size;
    return 0;
}
static void mediaindex_tiff_no_unmap(thandle_t handle, void *base, toff_t size) { (void)handle; (void)base; (void)size; }

/// Turns off libtiff's process-wide handlers (stderr); each file collects its own.
static inline void mediaindex_tiff_silence(void) {
    TIFFSetWarningHandler(NULL);
    TIFFSetErrorHandler(NULL);
}

/// Opens a TIFF read through `read`/`seek`/`size` (read-only), its
/// errors collected into `errors` and warnings dropped; no single allocation may exceed
/// `maxAllocation` bytes. Wraps `TIFFClientOpenExt`.
/// `map` (may be NULL) hands libtiff the whole file in memory.
static inline TIFF *mediaindex_tiff_open(thandle_t handle, TIFFReadWriteProc read, TIFFSeekProc seek, TIFFSizeProc size,
                                         TIFFMapFileProc map, mediaindex_tiff_message *errors, tmsize_t maxAllocation) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(options, mediaindex_tiff_keep_first, errors);
    TIFFOpenOptionsSetWarningHandlerExtR(options, mediaindex_tiff_ignore, NULL);
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, maxAllocation);
    TIFF *tif = TIFFClientOpenExt("image", map ? "r" : "rm", handle, read, mediaindex_tiff_no_write, seek,
                                  mediaindex_tiff_no_close, size, map ? map : mediaindex_tiff_no_map,
                                  mediaindex_tiff_no_unmap, options);
    TIFFOpenOptionsFree(options);
    return tif;
}
#endif
