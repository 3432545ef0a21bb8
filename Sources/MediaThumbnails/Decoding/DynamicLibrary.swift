#if canImport(Glibc)
import Glibc
#endif

/// A C library opened with `dlopen` (`RTLD_NOW | RTLD_LOCAL`) and never closed, and typed
/// lookups of its functions: how the codec libraries are loaded on first use (`HeifLibrary`,
/// `JxlLibrary`) instead of being linked into every process.
struct DynamicLibrary: @unchecked Sendable {  // a handle dlopen never invalidates while open
    let soname: String
    private let handle: UnsafeMutableRawPointer

    /// - Throws: `ThumbnailError.decodeFailed` naming the library and dlerror's reason.
    init(soname: String) throws(ThumbnailError) {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            throw ThumbnailError.decodeFailed("\(soname) could not be loaded (\(reason))")
        }
        self.soname = soname
        self.handle = handle
    }

    /// The function `name`, as the C function type `T`.
    ///
    /// - Throws: `ThumbnailError.decodeFailed` when the library has no such symbol.
    func function<T>(_ name: String, as _: T.Type = T.self) throws(ThumbnailError) -> T {
        guard let symbol = dlsym(handle, name) else {
            throw ThumbnailError.decodeFailed("\(soname) has no function \(name)")
        }
        return unsafeBitCast(symbol, to: T.self)
    }
}
