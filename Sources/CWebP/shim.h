#ifndef MEDIAINDEX_CWEBP_SHIM_H
#define MEDIAINDEX_CWEBP_SHIM_H
// libwebp: decoding (with scaling), encoding, and the demuxer for animated files.
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>
#endif
