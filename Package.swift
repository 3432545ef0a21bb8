// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MediaIndex",
    products: [
        .library(name: "MediaIndex", targets: ["MediaIndex"]),
        // The HTTP API, the web picker and MediaPicker.pick(configuration:).
        .library(name: "MediaIndexServer", targets: ["MediaIndexServer"]),
        .executable(name: "mediaindex", targets: ["mediaindex"]),
        .executable(name: "thumbnail-bench", targets: ["thumbnail-bench"]),
    ],
    targets: [
        // System libraries, from Debian's -dev packages.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Linux headers Glibc's module leaves out (statfs), for the watcher; no library to link.
        .systemLibrary(name: "CLinux"),
        .systemLibrary(
            name: "CExif",
            pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"])]
        ),

        // Child processes on posix_spawn (not Foundation's Process): arguments as bytes, streams
        // collected without deadlock, timeouts. No dependencies.
        .target(name: "ChildProcesses"),
        .testTarget(name: "ChildProcessesTests", dependencies: ["ChildProcesses"]),

        // Pure readers: bytes -> facts. Knows nothing of SQLite.
        .target(
            name: "MediaMetadata",
            dependencies: ["CExif"]
        ),

        // Pure, like MediaMetadata: the memory-mapped places file -> (place, zone); offsets from tzdata;
        // capture-time offsets resolved in their order of sources. No SQLite.
        .target(name: "MediaPlaces"),
        .testTarget(name: "MediaPlacesTests", dependencies: ["MediaPlaces"]),

        // The library product: database, indexer, identity, queries.
        .target(
            name: "MediaIndex",
            dependencies: ["MediaMetadata", "MediaPlaces", "MediaThumbnails", "CSQLite",
                           "CLinux"],
            plugins: ["EmbedMigrations"]
        ),

        // Thumbnails: decode, downscale, orient, encode. Knows nothing of SQLite.
        .systemLibrary(name: "CJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // libheif and libjxl are not linked: MediaThumbnails opens them with dlopen on first use
        // (HeifLibrary, JxlLibrary), so a process that decodes neither never loads their codecs.
        // Their headers are found on the default include path.
        .systemLibrary(name: "CHeif", providers: [.apt(["libheif-dev"])]),
        // dav1d (libheif's AV1 decoder) is called directly for AVIF images, also through dlopen.
        .systemLibrary(name: "CDav1d", providers: [.apt(["libdav1d-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "CJXL", providers: [.apt(["libjxl-dev"])]),
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(name: "COpenJPEG", pkgConfig: "libopenjp2", providers: [.apt(["libopenjp2-7-dev"])]),
        .target(
            name: "MediaThumbnails",
            dependencies: ["MediaMetadata", "ChildProcesses", "CJPEG", "CPNG", "CHeif", "CDav1d", "CWebP", "CTIFF", "CJXL", "CLCMS2",
                           "COpenJPEG"]
        ),
        .executableTarget(name: "thumbnail-bench", dependencies: ["MediaThumbnails", "ChildProcesses"]),
        .testTarget(name: "MediaThumbnailsTests", dependencies: ["MediaThumbnails", "CorpusSupport", "CTIFF", "CLCMS2"]),

        // What the CLI and the HTTP API share: the JSON shapes and their encoder, suggestions.
        .target(
            name: "MediaIndexInterface",
            dependencies: ["MediaIndex", "MediaMetadata", "MediaPlaces"]
        ),

        // The HTTP API and the web picker, on libmicrohttpd.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .target(
            name: "MediaIndexServer",
            dependencies: ["MediaIndex", "MediaIndexInterface", "MediaMetadata", "ChildProcesses", "CMicroHTTPD"],
            plugins: ["EmbedWebPicker"]
        ),
        .executableTarget(name: "WebPickerEmbedder"),
        .plugin(name: "EmbedWebPicker", capability: .buildTool(), dependencies: ["WebPickerEmbedder"]),
        .testTarget(name: "MediaIndexServerTests",
                    dependencies: ["MediaIndexServer", "MediaIndexCLI", "MediaIndexInterface", "CorpusSupport",
                                   "LoopbackHTTPClient", "MediaThumbnails"]),

        // Argument parsing, commands and output.
        .target(
            name: "MediaIndexCLI",
            dependencies: ["MediaIndex", "MediaMetadata", "MediaPlaces", "MediaIndexInterface", "MediaIndexServer",
                           "ChildProcesses"]
        ),
        .executableTarget(
            name: "mediaindex",
            dependencies: ["MediaIndexCLI"]
        ),

        // Benchmarks against the reference tools: swift run -c release mediaindex-bench.
        .executableTarget(
            name: "mediaindex-bench",
            dependencies: ["MediaIndex", "MediaPlaces", "MediaThumbnails", "LoopbackHTTPClient", "MediaIndexTestSupport",
                           "ChildProcesses"]
        ),

        // The README's library example, built with the tests so it keeps compiling.
        .executableTarget(name: "example-picker", dependencies: ["MediaIndex"]),

        // Build-time: turns Migrations/*.sql into a Swift source file.
        .executableTarget(name: "MigrationEmbedder"),
        .plugin(
            name: "EmbedMigrations",
            capability: .buildTool(),
            dependencies: ["MigrationEmbedder"]
        ),

        // Finds the shared corpus and reads the reference tools' readings, for tests.
        .target(name: "CorpusSupport", dependencies: ["ChildProcesses"], path: "Tests/CorpusSupport"),
        // A minimal GET client for our own server on 127.0.0.1: the server tests and the bench.
        .target(name: "LoopbackHTTPClient", path: "Tests/LoopbackHTTPClient"),
        // Made-up libraries at scale (seedSyntheticAssets): the bench and the tests.
        .target(name: "MediaIndexTestSupport", dependencies: ["MediaIndex", "MediaMetadata", "CorpusSupport"],
                path: "Tests/MediaIndexTestSupport"),
        .testTarget(name: "MediaMetadataTests", dependencies: ["MediaMetadata", "CorpusSupport"]),
        .testTarget(name: "MediaIndexTests", dependencies: ["MediaIndex", "MediaIndexInterface", "MediaThumbnails", "CorpusSupport",
                                                          "MediaIndexTestSupport", "ChildProcesses", "CSQLite"]),
        .testTarget(name: "MediaIndexCLITests", dependencies: ["MediaIndexCLI", "MediaIndexInterface", "MediaPlaces", "CorpusSupport",
                                                             "LoopbackHTTPClient"]),
    ],
    swiftLanguageModes: [.v6]
)
