import Foundation

extension AssetQuery {
    /// A user-state column of the asset `a` (the user's own words), NULL when unset.
    static func userColumn(_ column: String) -> String {
        "(SELECT u.\(column) FROM userstate.asset_user_state u WHERE u.identifier = a.identifier)"
    }

    /// The keyword key an asset shows (`|a|a|b|`): the user's keywords' over the file's.
    static let keywordKeyExpression = "coalesce(keyword_key(\(userColumn("keywords"))), a.keyword_key)"

    /// The rating an asset shows: the user's over the file's.
    static let ratingExpression = "coalesce(\(userColumn("rating")), a.rating)"

    /// The assets whose file has a keyword, found in the text index's `keyword_levels`
    /// column (its levels as an exact phrase), plus those with keywords of the user's own
    /// (not in the index): the exact test then reads only these rows, and where the user has
    /// set no keywords the list alone answers (`SearchPlan.readable`). One list, so a query
    /// can be driven by it (an `OR` of two tests reads every asset).
    static func keywordCandidates(_ keyword: String) -> SQLCondition {
        guard let match = DescriptiveColumns.levelsPhrase(keyword) else { return .alwaysTrue }
        var membership = SearchExpression.textCondition(match)
        membership.sql.removeLast()
        membership.sql += userKeywordCandidates + ")"
        return membership
    }

    /// The assets with keywords of the user's own, joined to a keyword's matches in the
    /// text index (`keywordCandidates`); left out when the user has set none.
    static let userKeywordCandidates = """
         UNION SELECT u.id FROM assets u WHERE u.identifier IN \
        (SELECT identifier FROM userstate.asset_user_state WHERE keywords IS NOT NULL)
        """

    /// The describing filters of `options` (keywords, people, rating, label, caption,
    /// title) as conditions on `assets` aliased `a`; the user's own words (user state)
    /// stand over the file's, as the asset shows them.
    ///
    /// - Throws: `AssetQueryError.invalidRating` for a rating outside -1…5.
    static func descriptionConditions(_ options: FetchOptions) throws -> [SQLCondition] {
        var conditions: [SQLCondition] = []
        for keyword in options.keywords {
            let (sql, values) = DescriptiveColumns.keywordCondition(keyword, column: keywordKeyExpression)
            conditions.append(keywordCandidates(keyword))
            conditions.append(SQLCondition(sql: sql, values: values))
        }
        for person in options.people {
            let (sql, values) = DescriptiveColumns.personCondition(person, column: "a.people_key")
            conditions.append(SQLCondition(sql: sql, values: values))
        }
        for stars in [options.minimumRating, options.rating].compactMap({ $0 }) where !(-1...5).contains(stars) {
            throw AssetQueryError.invalidRating(stars)
        }
        conditions += SQLCondition.comparisons([
            ("\(ratingExpression) >= ?", options.minimumRating),
            ("\(ratingExpression) = ?", options.rating),
            ("a.label = ? COLLATE NOCASE", options.label),
        ])
        for (column, wanted) in [("caption", options.hasCaption), ("title", options.hasTitle)] {
            guard let wanted else { continue }
            let expression = "coalesce(\(userColumn(column)), a.\(column))"
            conditions.append(SQLCondition(sql: wanted ? "\(expression) IS NOT NULL" : "\(expression) IS NULL"))
        }
        return conditions
    }
}
