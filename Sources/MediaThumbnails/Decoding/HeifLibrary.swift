#if canImport(Glibc)
import Glibc
#endif
import CHeif

/// The libheif entry points MediaThumbnails calls, looked up with `dlopen` the first time a
/// HEIC, HEIF or AVIF is decoded.
///
/// Why not linked: libheif brings libde265, libx265, libaom and libdav1d, whose loading and
/// static initialisers cost every `mediaindex` process (a listing too) tens of milliseconds.
/// The C header is still imported for its types and constants. Each member is named as
/// libheif's function without its `heif_` prefix, so a call reads `libheif.image_release(image)`.
struct HeifLibrary: @unchecked Sendable {  // immutable C function pointers into a loaded library
    typealias Context = OpaquePointer
    typealias Handle = OpaquePointer
    typealias Image = OpaquePointer

    let context_alloc: @convention(c) () -> Context?
    let context_free: @convention(c) (Context?) -> Void
    let context_set_max_decoding_threads: @convention(c) (Context?, Int32) -> Void
    let context_read_from_memory_without_copy: @convention(c) (Context?, UnsafeRawPointer?, Int, OpaquePointer?) -> heif_error
    let context_get_primary_image_handle: @convention(c) (Context?, UnsafeMutablePointer<Handle?>?) -> heif_error
    let has_compatible_brand: @convention(c) (UnsafePointer<UInt8>?, Int32, UnsafePointer<CChar>?) -> Int32
    let image_handle_release: @convention(c) (Handle?) -> Void
    let image_handle_get_width: @convention(c) (Handle?) -> Int32
    let image_handle_get_height: @convention(c) (Handle?) -> Int32
    let image_handle_get_luma_bits_per_pixel: @convention(c) (Handle?) -> Int32
    let image_handle_has_alpha_channel: @convention(c) (Handle?) -> Int32
    let image_handle_get_number_of_thumbnails: @convention(c) (Handle?) -> Int32
    let image_handle_get_list_of_thumbnail_IDs: @convention(c) (Handle?, UnsafeMutablePointer<heif_item_id>?, Int32) -> Int32
    let image_handle_get_thumbnail: @convention(c) (Handle?, heif_item_id, UnsafeMutablePointer<Handle?>?) -> heif_error
    let image_handle_get_raw_color_profile_size: @convention(c) (Handle?) -> Int
    let image_handle_get_raw_color_profile: @convention(c) (Handle?, UnsafeMutableRawPointer?) -> heif_error
    let image_handle_get_nclx_color_profile: @convention(c) (Handle?, UnsafeMutablePointer<UnsafeMutablePointer<heif_color_profile_nclx>?>?) -> heif_error
    let nclx_color_profile_free: @convention(c) (UnsafeMutablePointer<heif_color_profile_nclx>?) -> Void
    let decoding_options_alloc: @convention(c) () -> UnsafeMutablePointer<heif_decoding_options>?
    let decoding_options_free: @convention(c) (UnsafeMutablePointer<heif_decoding_options>?) -> Void
    let decode_image: @convention(c) (Handle?, UnsafeMutablePointer<Image?>?, heif_colorspace, heif_chroma,
                                      UnsafePointer<heif_decoding_options>?) -> heif_error
    let image_create: @convention(c) (Int32, Int32, heif_colorspace, heif_chroma, UnsafeMutablePointer<Image?>?) -> heif_error
    let image_add_plane: @convention(c) (Image?, heif_channel, Int32, Int32, Int32) -> heif_error
    let image_release: @convention(c) (Image?) -> Void
    let image_get_colorspace: @convention(c) (Image?) -> heif_colorspace
    let image_has_channel: @convention(c) (Image?, heif_channel) -> Int32
    let image_get_width: @convention(c) (Image?, heif_channel) -> Int32
    let image_get_height: @convention(c) (Image?, heif_channel) -> Int32
    let image_get_bits_per_pixel: @convention(c) (Image?, heif_channel) -> Int32
    let image_get_bits_per_pixel_range: @convention(c) (Image?, heif_channel) -> Int32
    let image_get_plane_readonly: @convention(c) (Image?, heif_channel, UnsafeMutablePointer<Int32>?) -> UnsafePointer<UInt8>?
    let image_get_plane: @convention(c) (Image?, heif_channel, UnsafeMutablePointer<Int32>?) -> UnsafeMutablePointer<UInt8>?
    let register_decoder_plugin: @convention(c) (UnsafePointer<heif_decoder_plugin>?) -> heif_error

    /// Debian's soname of libheif 1.x.
    static let soname = "libheif.so.1"

    /// The library, loaded once; or why it could not be.
    private static let loaded: Result<HeifLibrary, ThumbnailError> = {
        do throws(ThumbnailError) { return .success(try HeifLibrary()) } catch { return .failure(error) }
    }()

    /// libheif, loaded on first use.
    ///
    /// - Throws: `ThumbnailError.decodeFailed` naming the library when it cannot be loaded
    ///   or lacks a function.
    static func load() throws(ThumbnailError) -> HeifLibrary { try loaded.get() }

    /// The library once `load()` has succeeded: every libheif object (context, handle,
    /// image) is made after it did, so code holding one may use this.
    static var loadedLibrary: HeifLibrary {
        guard case .success(let library) = loaded else { preconditionFailure("libheif is used before HeifLibrary.load() succeeded") }
        return library
    }

    private init() throws(ThumbnailError) {
        let library = try DynamicLibrary(soname: HeifLibrary.soname)
        context_alloc = try library.function("heif_context_alloc")
        context_free = try library.function("heif_context_free")
        context_set_max_decoding_threads = try library.function("heif_context_set_max_decoding_threads")
        context_read_from_memory_without_copy = try library.function("heif_context_read_from_memory_without_copy")
        context_get_primary_image_handle = try library.function("heif_context_get_primary_image_handle")
        has_compatible_brand = try library.function("heif_has_compatible_brand")
        image_handle_release = try library.function("heif_image_handle_release")
        image_handle_get_width = try library.function("heif_image_handle_get_width")
        image_handle_get_height = try library.function("heif_image_handle_get_height")
        image_handle_get_luma_bits_per_pixel = try library.function("heif_image_handle_get_luma_bits_per_pixel")
        image_handle_has_alpha_channel = try library.function("heif_image_handle_has_alpha_channel")
        image_handle_get_number_of_thumbnails = try library.function("heif_image_handle_get_number_of_thumbnails")
        image_handle_get_list_of_thumbnail_IDs = try library.function("heif_image_handle_get_list_of_thumbnail_IDs")
        image_handle_get_thumbnail = try library.function("heif_image_handle_get_thumbnail")
        image_handle_get_raw_color_profile_size = try library.function("heif_image_handle_get_raw_color_profile_size")
        image_handle_get_raw_color_profile = try library.function("heif_image_handle_get_raw_color_profile")
        image_handle_get_nclx_color_profile = try library.function("heif_image_handle_get_nclx_color_profile")
        nclx_color_profile_free = try library.function("heif_nclx_color_profile_free")
        decoding_options_alloc = try library.function("heif_decoding_options_alloc")
        decoding_options_free = try library.function("heif_decoding_options_free")
        decode_image = try library.function("heif_decode_image")
        image_create = try library.function("heif_image_create")
        image_add_plane = try library.function("heif_image_add_plane")
        image_release = try library.function("heif_image_release")
        image_get_colorspace = try library.function("heif_image_get_colorspace")
        image_has_channel = try library.function("heif_image_has_channel")
        image_get_width = try library.function("heif_image_get_width")
        image_get_height = try library.function("heif_image_get_height")
        image_get_bits_per_pixel = try library.function("heif_image_get_bits_per_pixel")
        image_get_bits_per_pixel_range = try library.function("heif_image_get_bits_per_pixel_range")
        image_get_plane_readonly = try library.function("heif_image_get_plane_readonly")
        image_get_plane = try library.function("heif_image_get_plane")
        register_decoder_plugin = try library.function("heif_register_decoder_plugin")
    }
}

/// libheif for code that holds a libheif object (see `HeifLibrary.loadedLibrary`).
var libheif: HeifLibrary { HeifLibrary.loadedLibrary }
