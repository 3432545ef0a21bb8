import MediaIndex

extension MediaIndexAPI {
    /// Whether `request` may see hidden assets: only with the token (`Authorization:
    /// Bearer`, or the cookie a page opened with `/?token=` holds). Without it hidden
    /// assets are in no listing, timeline, album or search, and their own routes are 404.
    func seesHidden(_ request: HTTPRequest) -> Bool {
        guard let credential = try? configuration.policy.credential(of: request) else { return false }
        return credential != .none
    }

    /// The answer caches' key for `request`: a request that may see hidden assets never
    /// shares an answer with one that may not.
    func answerKey(_ request: HTTPRequest) -> String {
        AnswerCache<[UInt8]>.key(request) + (seesHidden(request) ? "\u{3}hidden" : "")
    }

    /// Refuses options that show hidden assets to a request without the token.
    ///
    /// - Throws: `APIError` 403 `hiddenNeedsToken`.
    func checkHiddenAccess(_ options: FetchOptions, _ request: HTTPRequest) throws {
        guard options.showsHidden, !seesHidden(request) else { return }
        throw APIError(status: 403, code: "hiddenNeedsToken", message: "hidden assets are shown only with the token: "
                       + "send Authorization: Bearer TOKEN, or open the picker as /?token=TOKEN&includeHidden=1")
    }
}
