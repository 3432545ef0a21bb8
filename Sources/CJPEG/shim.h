#ifndef MEDIAINDEX_CJPEG_SHIM_H
#define MEDIAINDEX_CJPEG_SHIM_H
// The TurboJPEG API: scaled decoding, CMYK output and error strings without setjmp.
#include <stddef.h>
#include <turbojpeg.h>
#endif
