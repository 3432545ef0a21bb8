#ifndef MEDIAINDEX_CJPEG_SHIM_H
#define MEDIAINDEX_CJPEG_SHIM_H
// The TurboJPEG API: scaled decoding, CMYK output and error strings without setjmp.
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <turbojpeg.h>
// libjpeg's own API, for what TurboJPEG 2.1 does not expose: the ICC profile
// (APP2 ICC_PROFILE chunks, reassembled by jpeg_read_icc_profile) and the Adobe marker.
#include <jpeglib.h>

struct mediaindex_jpeg_error {
    struct jpeg_error_mgr base;
    jmp_buf jump;
};

static void mediaindex_jpeg_error_exit(j_common_ptr info) {
    longjmp(((struct mediaindex_jpeg_error *)info->err)->jump, 1);
}
static void mediaindex_jpeg_quiet(j_common_ptr info, int level) { (void)info; (void)level; }

/// Reads a JPEG's markers up to its first scan: its ICC profile (malloc'ed, the caller
/// frees it; NULL when there is none) and whether an Adobe APP14 marker is present (whose
/// CMYK is stored inverted). libjpeg's errors longjmp back here, never into Swift.
/// Returns 0 when the header is unreadable. Wraps `jpeg_read_header` and `jpeg_read_icc_profile`.
static inline int mediaindex_jpeg_read_colour(const unsigned char *data, unsigned long size, unsigned char **icc,
                                              unsigned int *iccLength, int *adobe) {
    struct jpeg_decompress_struct info;
    struct mediaindex_jpeg_error error;
    *icc = NULL; *iccLength = 0; *adobe = 0;
    info.err = jpeg_std_error(&error.base);
    error.base.error_exit = mediaindex_jpeg_error_exit;
    error.base.emit_message = mediaindex_jpeg_quiet;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&info);
        if (*icc) { free(*icc); *icc = NULL; *iccLength = 0; }
        return 0;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, size);
    jpeg_save_markers(&info, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&info, TRUE);
    *adobe = info.saw_Adobe_marker ? 1 : 0;
    JOCTET *profile = NULL;
    unsigned int length = 0;
    if (jpeg_read_icc_profile(&info, &profile, &length) && profile) {
        *icc = profile;
        *iccLength = length;
    }
    jpeg_destroy_decompress(&info);
    return 1;
}
#endif
