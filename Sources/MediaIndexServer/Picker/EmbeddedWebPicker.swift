/// One file of the web picker, embedded at build time from `WebPicker/`.
struct EmbeddedWebFile: Sendable {
    /// The file's name, which is also its path under `/`.
    var name: String
    /// Its `Content-Type`.
    var contentType: String
    /// Its text.
    var text: String
}

/// The web picker's files (`index.html`, `picker.css`, `picker.js`); `files` is generated
/// by the EmbedWebPicker plugin.
enum EmbeddedWebPicker {
    /// The file named `name`, if the picker has one.
    static func file(named name: String) -> EmbeddedWebFile? {
        files.first { $0.name == name }
    }
}
