#ifndef MEDIAINDEX_CLINUX_SHIM_H
#define MEDIAINDEX_CLINUX_SHIM_H
// Linux calls that Swift's Glibc module does not export (sys/vfs.h is not in it).
#include <stdint.h>
#include <errno.h>
#include <sys/vfs.h>

// statfs(2)'s f_type for `path`; returns 0, or -1 with errno set. f_type's width differs
// between architectures, so it is widened here.
static inline int mediaindex_filesystem_type(const char *path, int64_t *type) {
    struct statfs info;
    int result;
    do { result = statfs(path, &info); } while (result != 0 && errno == EINTR);
    if (result == 0) { *type = (int64_t)info.f_type; }
    return result;
}
#endif
