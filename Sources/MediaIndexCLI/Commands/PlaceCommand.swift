import Foundation
import MediaIndexInterface
import MediaPlaces

/// `mediaindex place LAT,LON [--at ISO8601] [--json]`, or `mediaindex place -` for lines on stdin.
struct PlaceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "place",
        abstract: "Look up the place, time zone and UTC offset of a position, offline.",
        discussion: """
            Country and zone come from the time-zone boundaries, the locality from GeoNames places \
            within 30 km in that country. With -, reads LAT,LON or LAT,LON,ISO8601 lines on standard \
            input and prints one JSON object per line, in order; a bad line prints {"line", "input", \
            "error"} and the rest goes on. The data file is $MEDIAINDEX_PLACES_DATA, else \
            $XDG_DATA_HOME/mediaindex/places.mip; scripts/install-places-data builds it.
            """
    )

    static let at = Argument.option(
        "at", valueName: "iso8601",
        help: "The instant for the UTC offset (default: now); without an offset, a wall clock in the zone found."
    )
    static let json = Argument.flag("json", help: "Print {\"latitude\", \"longitude\", \"place\", \"timeZone\", \"utcOffset\", \"at\"}.")
    static let position = Argument.positional("position", help: "LAT,LON in decimal degrees, or - to read lines on standard input.")
    static let arguments = declared(at, json, position)

    var position: String
    var at: PlaceQuery.QueryInstant?
    var json: Bool

    init(parsed: ParsedArguments) throws {
        position = try parsed[Self.position]
        json = try parsed[Self.json]
        if let text = try parsed[Self.at] {
            do {
                at = try PlaceQuery.parseInstant(text)
            } catch {
                throw ValidationError("--at: \(error.description)")
            }
        }
    }

    func validate() throws {
        guard position != "-" else { return }
        do {
            _ = try PlaceQuery.parse(position)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run(in context: CommandContext) async throws {
        let places = try PlacesData(path: PlacesData.defaultPath(environment: context.environment))
        guard position == "-" else {
            let answer = places.answer(try PlaceQuery.parse(position, defaultInstant: at))
            context.standardOutput.writeLine(json ? JSON.placeAnswer(answer).prettyText : Self.text(answer))
            return
        }
        var number = 0
        while let line = readLine(strippingNewline: true) {
            number += 1
            context.standardOutput.writeLine(Self.answerLine(line, number: number, places: places, at: at).compactText)
        }
    }

    /// One stdin line's JSON object: the answer, or the line, its text and an error sentence.
    static func answerLine(_ line: String, number: Int, places: PlacesData, at: PlaceQuery.QueryInstant?) -> JSON {
        do {
            return JSON.placeAnswer(places.answer(try PlaceQuery.parse(line, defaultInstant: at)))
        } catch {
            return .object([("line", .int(number)), ("input", .string(line)), ("error", .string(error.description))])
        }
    }

    /// `Shinjuku, Tokyo, Japan (JP) · Asia/Tokyo · UTC+09:00 at 2023-07-01T23:30:00+09:00`.
    static func text(_ answer: PlaceAnswer) -> String {
        let place = answer.lookup.place
        var names = [place.locality, place.region, place.country].compactMap { $0 }
        if names.isEmpty { names = [place.name] }
        var text = names.joined(separator: ", ") + (place.countryCode.map { " (\($0))" } ?? "")
        if let zone = answer.lookup.timeZone { text += " · \(zone)" }
        if let offset = answer.utcOffsetSeconds {
            text += " · UTC\(TimeZoneRules.offsetText(seconds: offset)) at \(JSON.instantText(answer.instant, offsetSeconds: offset))"
        }
        return text
    }
}
