// A photo picker's questions, answered by MediaIndex: the README's library example.
// Usage: example-picker [LIBRARY_FOLDER]   (default: $MEDIAINDEX_LIBRARY or ~/.local/share/mediaindex)
import Foundation
import MediaIndex

let folder = CommandLine.arguments.dropFirst().first
    ?? LibraryLocation.resolve(explicit: nil).directory

do {
    let library = try await MediaLibrary.open(at: folder)

    // The first page of photos that are not screenshots, newest first.
    var options = FetchOptions()
    options.filter = .all(of: [.images, .not(.screenshots)])
    options.limit = 20
    let page = try await library.fetchAssets(options)
    for asset in page.assets {
        let file = await asset.url()?.path ?? "?"
        print(asset.id, asset.mediaType.rawValue, asset.creationDate ?? "undated", file)
    }

    // The next page starts after the cursor; it stays right while an index run writes.
    if let cursor = page.nextCursor {
        options.after = cursor
        let next = try await library.fetchAssets(options)
        print("next page: \(next.assets.count) assets")
    }

    // Counts without fetching rows, and the albums a picker shows in its sidebar.
    let counts = try await library.countAssets(FetchOptions())
    print("\(counts.images) images, \(counts.videos) videos")
    for album in try await library.fetchAlbums() where album.kind != .folder {
        print(album.title, album.count)
    }

    // The bytes of the newest asset, for sharing.
    if let newest = page.assets.first {
        let data = try await newest.data()
        print("\(newest.id): \(data.count) bytes")
    }

    // Grid cells: each asset's thumbnail file, made on first use and cached after
    // (in $MEDIAINDEX_CACHE or ~/.cache/mediaindex). Some assets have none: say why.
    for asset in page.assets.prefix(4) {
        do {
            let thumbnail = try await library.thumbnailURL(for: asset, size: 256, mode: .fill)
            print("thumbnail \(asset.id): \(thumbnail.path)")
        } catch let error as ThumbnailUnavailable {
            print(error)
        }
    }
} catch {
    print("example-picker: \(error)")
    exit(1)
}
