import CJXL

/// The libjxl decoder entry points MediaThumbnails calls, looked up with `dlopen` the first
/// time a JPEG XL is decoded.
///
/// Why not linked: libjxl brings libhwy (whose static initialiser measures the timer's
/// resolution at load time) and brotli, a cost every `mediaindex` process paid. The C header
/// is still imported for its types and constants. Each member is named as libjxl's function
/// without its `JxlDecoder` prefix: `libjxl.ProcessInput(decoder)`.
struct JxlLibrary: @unchecked Sendable {  // immutable C function pointers into a loaded library
    typealias Decoder = OpaquePointer

    let Create: @convention(c) (UnsafeRawPointer?) -> Decoder?
    let Destroy: @convention(c) (Decoder?) -> Void
    let SubscribeEvents: @convention(c) (Decoder?, Int32) -> JxlDecoderStatus
    let SetInput: @convention(c) (Decoder?, UnsafePointer<UInt8>?, Int) -> JxlDecoderStatus
    let CloseInput: @convention(c) (Decoder?) -> Void
    let ProcessInput: @convention(c) (Decoder?) -> JxlDecoderStatus
    let GetBasicInfo: @convention(c) (Decoder?, UnsafeMutablePointer<JxlBasicInfo>?) -> JxlDecoderStatus
    let GetICCProfileSize: @convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, JxlColorProfileTarget,
                                           UnsafeMutablePointer<Int>?) -> JxlDecoderStatus
    let GetColorAsICCProfile: @convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, JxlColorProfileTarget,
                                              UnsafeMutablePointer<UInt8>?, Int) -> JxlDecoderStatus
    let SetImageOutCallback: @convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, JxlImageOutCallback?,
                                             UnsafeMutableRawPointer?) -> JxlDecoderStatus

    /// Debian's soname of libjxl 0.7.
    static let soname = "libjxl.so.0.7"

    /// The library, loaded once; or why it could not be.
    private static let loaded: Result<JxlLibrary, ThumbnailError> = {
        do throws(ThumbnailError) { return .success(try JxlLibrary()) } catch { return .failure(error) }
    }()

    /// libjxl, loaded on first use.
    ///
    /// - Throws: `ThumbnailError.decodeFailed` naming the library when it cannot be loaded
    ///   or lacks a function.
    static func load() throws(ThumbnailError) -> JxlLibrary { try loaded.get() }

    private init() throws(ThumbnailError) {
        let library = try DynamicLibrary(soname: JxlLibrary.soname)
        Create = try library.function("JxlDecoderCreate")
        Destroy = try library.function("JxlDecoderDestroy")
        SubscribeEvents = try library.function("JxlDecoderSubscribeEvents")
        SetInput = try library.function("JxlDecoderSetInput")
        CloseInput = try library.function("JxlDecoderCloseInput")
        ProcessInput = try library.function("JxlDecoderProcessInput")
        GetBasicInfo = try library.function("JxlDecoderGetBasicInfo")
        GetICCProfileSize = try library.function("JxlDecoderGetICCProfileSize")
        GetColorAsICCProfile = try library.function("JxlDecoderGetColorAsICCProfile")
        SetImageOutCallback = try library.function("JxlDecoderSetImageOutCallback")
    }
}
