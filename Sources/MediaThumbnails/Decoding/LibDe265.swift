#if canImport(Glibc)
import Glibc
#endif

/// The few libde265 entry points our HEVC decoder plugin needs, looked up at run time.
///
/// libheif depends on libde265 (it is its HEVC decoder), so the library is installed with
/// it; looking it up with `dlopen` spares the package a system-library target for
/// one plugin. When it cannot be found, libheif's own libde265 plugin decodes as before.
struct LibDe265: @unchecked Sendable {  // immutable C function pointers into a loaded library
    typealias Context = OpaquePointer
    typealias Picture = OpaquePointer

    let newDecoder: @convention(c) () -> Context?
    let freeDecoder: @convention(c) (Context?) -> Int32
    let setParameterBool: @convention(c) (Context?, Int32, Int32) -> Void
    let pushNAL: @convention(c) (Context?, UnsafeRawPointer?, Int32, Int64, UnsafeMutableRawPointer?) -> Int32
    let flushData: @convention(c) (Context?) -> Int32
    let decode: @convention(c) (Context?, UnsafeMutablePointer<Int32>?) -> Int32
    let getNextPicture: @convention(c) (Context?) -> Picture?
    let releaseNextPicture: @convention(c) (Context?) -> Void
    let imageWidth: @convention(c) (Picture?, Int32) -> Int32
    let imageHeight: @convention(c) (Picture?, Int32) -> Int32
    let chromaFormat: @convention(c) (Picture?) -> Int32
    let bitsPerPixel: @convention(c) (Picture?, Int32) -> Int32
    let imagePlane: @convention(c) (Picture?, Int32, UnsafeMutablePointer<Int32>?) -> UnsafePointer<UInt8>?
    /// The picture's VUI `video_full_range_flag` and `matrix_coefficients` (libde265 1.0.9 on; nil before).
    let fullRangeFlag: (@convention(c) (Picture?) -> Int32)?
    let matrixCoefficients: (@convention(c) (Picture?) -> Int32)?

    // de265.h constants.
    static let ok: Int32 = 0
    static let waitingForInputData: Int32 = 13
    static let parameterDisableDeblocking: Int32 = 7
    static let parameterDisableSAO: Int32 = 8
    static let chromaMono: Int32 = 0

    /// The library as loaded by libheif, or nil when it is not there.
    static let shared: LibDe265? = LibDe265()

    private init?() {
        guard let library = dlopen("libde265.so.0", RTLD_NOW | RTLD_LOCAL) else { return nil }
        func lookup<T>(_ name: String, _: T.Type) -> T? {
            dlsym(library, name).map { unsafeBitCast($0, to: T.self) }
        }
        guard let initialise = lookup("de265_init", (@convention(c) () -> Int32).self),
              let newDecoder = lookup("de265_new_decoder", (@convention(c) () -> Context?).self),
              let freeDecoder = lookup("de265_free_decoder", (@convention(c) (Context?) -> Int32).self),
              let setParameterBool = lookup("de265_set_parameter_bool", (@convention(c) (Context?, Int32, Int32) -> Void).self),
              let pushNAL = lookup("de265_push_NAL",
                                   (@convention(c) (Context?, UnsafeRawPointer?, Int32, Int64, UnsafeMutableRawPointer?) -> Int32).self),
              let flushData = lookup("de265_flush_data", (@convention(c) (Context?) -> Int32).self),
              let decode = lookup("de265_decode", (@convention(c) (Context?, UnsafeMutablePointer<Int32>?) -> Int32).self),
              let getNextPicture = lookup("de265_get_next_picture", (@convention(c) (Context?) -> Picture?).self),
              let releaseNextPicture = lookup("de265_release_next_picture", (@convention(c) (Context?) -> Void).self),
              let imageWidth = lookup("de265_get_image_width", (@convention(c) (Picture?, Int32) -> Int32).self),
              let imageHeight = lookup("de265_get_image_height", (@convention(c) (Picture?, Int32) -> Int32).self),
              let chromaFormat = lookup("de265_get_chroma_format", (@convention(c) (Picture?) -> Int32).self),
              let bitsPerPixel = lookup("de265_get_bits_per_pixel", (@convention(c) (Picture?, Int32) -> Int32).self),
              let imagePlane = lookup("de265_get_image_plane",
                                      (@convention(c) (Picture?, Int32, UnsafeMutablePointer<Int32>?) -> UnsafePointer<UInt8>?).self)
        else { return nil }
        // Initialisation is reference-counted inside libde265; libheif's own plugin does the same.
        guard initialise() == LibDe265.ok else { return nil }
        self.newDecoder = newDecoder
        self.freeDecoder = freeDecoder
        self.setParameterBool = setParameterBool
        self.pushNAL = pushNAL
        self.flushData = flushData
        self.decode = decode
        self.getNextPicture = getNextPicture
        self.releaseNextPicture = releaseNextPicture
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.chromaFormat = chromaFormat
        self.bitsPerPixel = bitsPerPixel
        self.imagePlane = imagePlane
        fullRangeFlag = lookup("de265_get_image_full_range_flag", (@convention(c) (Picture?) -> Int32).self)
        matrixCoefficients = lookup("de265_get_image_matrix_coefficients", (@convention(c) (Picture?) -> Int32).self)
    }
}

extension LibDe265 {
    /// Flushes what was pushed into `context` and decodes, handing each picture that
    /// comes out to `body` (released after it returns) until `body` returns false or the
    /// decoder has nothing more.
    ///
    /// An image item is one picture; the step bound only guards against a decoder that
    /// never finishes. Wraps `de265_flush_data`, `de265_decode`, `de265_get_next_picture`
    /// and `de265_release_next_picture`.
    func decodePictures(_ context: Context, _ body: (Picture) throws -> Bool) rethrows {
        _ = flushData(context)
        var more: Int32 = 1
        var steps = 0
        while more != 0 && steps < 1_000_000 {
            steps += 1
            more = 0
            guard decode(context, &more) == LibDe265.ok else { break }
            if let picture = getNextPicture(context) {
                defer { releaseNextPicture(context) }
                guard try body(picture) else { return }
            }
        }
    }
}
