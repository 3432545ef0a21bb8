#ifndef MEDIAINDEX_CJXL_SHIM_H
#define MEDIAINDEX_CJXL_SHIM_H
// libjxl's decoder: JPEG XL codestreams and containers.
#include <jxl/decode.h>
#endif
