// A photo picker's questions, answered by MediaIndex: the README's library example.
// Usage: example-picker [LIBRARY_FOLDER]   (default: $MEDIAINDEX_LIBRARY or ~/.local/share/mediaindex)
import Foundation
import MediaIndex

let folder = CommandLine.arguments.dropFirst().first
    ?? LibraryLocation.resolve(explicit: nil).directory

do {
    // Thumbnails go to the cache configured here, once ($MEDIAINDEX_CACHE or ~/.cache/mediaindex by default).
    let library = try await MediaLibrary.open(at: URL(fileURLWithPath: folder))

    // The first page of photos that are not screenshots, newest first.
    var options = FetchOptions()
    options.filter = .all(of: [.images, .not(.screenshots)])
    options.limit = 20
    let page = try await library.fetchAssets(options)
    for asset in page.assets {
        let file = asset.url()?.path ?? "?"
        let taken = asset.creationDate.map { "\($0)" } ?? "undated"
        print(asset.id, asset.mediaType.rawValue, taken, asset.captureTime?.timeZone?.identifier ?? "local time", file)
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

    // One asset again by its identifier, whole: isFavorite, isHidden, albums, resources.
    if let first = page.assets.first, let again = try await library.asset(id: first.id) {
        print(again.id, again.isFavorite ? "♥" : "", again.albums.map(\.description), again.resources.count)
        let data = try await again.data()
        print("\(again.id): \(data.count) bytes")
    }

    // Grid cells: each asset's thumbnail file, made on first use and cached after.
    // Some assets have none: say why.
    for asset in page.assets.prefix(4) {
        do {
            let thumbnail = try await library.thumbnail(for: asset, size: 256, mode: .fill, format: .webp)
            print("thumbnail \(asset.id): \(thumbnail.url.path)")
        } catch let error as ThumbnailUnavailable {
            print(error)
        }
    }

    // What changed since a token saved last time (here: everything still in the history).
    let changes = try await library.changes(since: .initial)
    for change in changes.changes.suffix(5) {
        print(change.token, change.kind, change.id, change.fields.map(\.rawValue))
    }
    print("next time ask since \(changes.currentToken)")
} catch {
    print("example-picker: \(error)")
    exit(1)
}
