import CDav1d
#if canImport(Glibc)
import Glibc
#endif

/// The dav1d entry points `HEIFDirectDecoder` calls to decode AVIF's AV1 pictures, looked
/// up with `dlopen` the first time one is decoded (dav1d is libheif's AV1 decoder, installed
/// with it).
///
/// Why directly: through libheif 1.15, dav1d runs with frame threading, which keeps every
/// coefficient of the frame (4 bytes each at 10 bits) beside the picture, and libheif then
/// copies the picture: a 10-bit 4:4:4 AVIF of 20 megapixels peaked at 525 MB. Called here
/// with one frame in flight, only dav1d's own picture exists at full size. Each member is
/// named as dav1d's function without its `dav1d_` prefix.
struct Dav1dLibrary: @unchecked Sendable {  // immutable C function pointers into a loaded library
    typealias Context = OpaquePointer

    let default_settings: @convention(c) (UnsafeMutablePointer<Dav1dSettings>?) -> Void
    let open: @convention(c) (UnsafeMutablePointer<Context?>?, UnsafePointer<Dav1dSettings>?) -> Int32
    let close: @convention(c) (UnsafeMutablePointer<Context?>?) -> Void
    let data_create: @convention(c) (UnsafeMutablePointer<Dav1dData>?, Int) -> UnsafeMutablePointer<UInt8>?
    let data_unref: @convention(c) (UnsafeMutablePointer<Dav1dData>?) -> Void
    let send_data: @convention(c) (Context?, UnsafeMutablePointer<Dav1dData>?) -> Int32
    let get_picture: @convention(c) (Context?, UnsafeMutablePointer<Dav1dPicture>?) -> Int32
    let picture_unref: @convention(c) (UnsafeMutablePointer<Dav1dPicture>?) -> Void

    /// Debian's soname of dav1d 1.x (API 6).
    static let soname = "libdav1d.so.6"

    /// dav1d's "try again" answer, `DAV1D_ERR(EAGAIN)`.
    static let again = -EAGAIN

    /// The library, loaded once; nil when it is not installed (AVIF then goes through libheif).
    static let shared: Dav1dLibrary? = try? Dav1dLibrary()

    private init() throws(ThumbnailError) {
        let library = try DynamicLibrary(soname: Dav1dLibrary.soname)
        default_settings = try library.function("dav1d_default_settings")
        open = try library.function("dav1d_open")
        close = try library.function("dav1d_close")
        data_create = try library.function("dav1d_data_create")
        data_unref = try library.function("dav1d_data_unref")
        send_data = try library.function("dav1d_send_data")
        get_picture = try library.function("dav1d_get_picture")
        picture_unref = try library.function("dav1d_picture_unref")
    }

    /// Decodes one AV1 image (`bytes`: its OBUs, sequence header first) and hands the
    /// picture to `body`; the decoder and its picture are freed on return.
    ///
    /// One frame in flight (`max_frame_delay` 1), so no frame-wide coefficient buffers.
    ///
    /// - Parameter threads: dav1d's worker threads (1: decode on one thread).
    /// - Parameter skipLoopFilters: skip deblocking, CDEF and loop restoration (for a
    ///   picture shrunk 4× or more, where they do not show).
    /// - Parameter pixelLimit: frames larger than this are refused by dav1d before it
    ///   allocates them.
    /// - Throws: `ThumbnailError.decodeFailed` when dav1d cannot start, rejects the data or
    ///   produces no picture; whatever `body` throws.
    func decodePicture<T>(_ bytes: [UInt8], threads: Int, skipLoopFilters: Bool, pixelLimit: Int,
                          _ body: (Dav1dPicture) throws -> T) throws -> T {
        var settings = Dav1dSettings()
        default_settings(&settings)
        settings.n_threads = Int32(max(1, threads))
        settings.max_frame_delay = 1
        settings.all_layers = 0
        settings.frame_size_limit = UInt32(clamping: pixelLimit)
        if skipLoopFilters { settings.inloop_filters = DAV1D_INLOOPFILTER_NONE }
        var context: Context?
        guard open(&context, &settings) == 0, let context else {
            throw ThumbnailError.decodeFailed("dav1d could not start a decoder")
        }
        defer { var c: Context? = context; close(&c) }
        var data = Dav1dData()
        guard !bytes.isEmpty, let destination = data_create(&data, bytes.count) else {
            throw ThumbnailError.decodeFailed("dav1d could not take the AV1 data")
        }
        defer { data_unref(&data) }
        bytes.withUnsafeBufferPointer { destination.update(from: $0.baseAddress!, count: $0.count) }
        var picture = Dav1dPicture()
        // An image is one frame: send until dav1d takes it all, ask until a picture comes
        // out; the bound only guards against a decoder that never finishes.
        for _ in 0..<10_000 {
            if data.sz > 0 {
                let sent = send_data(context, &data)
                guard sent == 0 || sent == Dav1dLibrary.again else {
                    throw ThumbnailError.decodeFailed("dav1d rejected the AV1 data (error \(-sent))")
                }
            }
            let got = get_picture(context, &picture)
            if got == 0 {
                defer { picture_unref(&picture) }
                return try body(picture)
            }
            guard got == Dav1dLibrary.again else {
                throw ThumbnailError.decodeFailed("dav1d could not decode the AV1 picture (error \(-got))")
            }
        }
        throw ThumbnailError.decodeFailed("dav1d produced no picture")
    }
}
