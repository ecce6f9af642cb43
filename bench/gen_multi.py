#!/usr/bin/env python3
"""Writes a deterministic `read` transcript of four interleaved streams with real connector schemas.

usage: gen_multi.py N OUT_DIR [--invalid-every K]

OUT_DIR/catalog.json   a configured catalog: source-faker's three incremental streams (users,
                       purchases, products: workloads/faker_configured_catalog.json as is) and
                       source-pokeapi's full-refresh stream pokemon (workloads/pokemon.json)
OUT_DIR/records.jsonl  N RECORD messages, the streams interleaved, a STREAM STATE of each faker
                       stream after every 500th record of that stream and at the end
OUT_DIR/expected.json  how many records there are, per stream, and how many were made invalid

The schemas are copied byte for byte from the Airbyte connectors (bench/workloads/README.md). The
records have the shape of source-faker's integration_tests/expected_records.jsonl (plus the
created_at and updated_at the schemas declare, which newer faker versions emit) and of a PokeAPI
/pokemon/{id} response (big nested records: arrays of objects holding arrays of objects). About
40% users, 40% purchases, 10% products, 10% pokemon; every record is valid against its stream's
schema, with formats asserted. Same N gives the same bytes on every run (fixed seed, no clock).

--invalid-every K breaks every K-th record (K-1, 2K-1, ...) with exactly one schema error; the
broken records go round the four streams (users, purchases, products, pokemon) and each stream
cycles through its own kinds of break. The first kind of a faker stream is a date-time
format error, which only validators that assert formats can see.
"""

import datetime
import json
import os
import random

import gen_common

SEED = 11
STATE_EVERY = 500  # records of one stream between two of its STATEs
WORKLOADS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "workloads")
STREAM_WEIGHTS = {"users": 4, "purchases": 4, "products": 1, "pokemon": 1}
EPOCH = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
API = "https://pokeapi.co/api/v2"

FIRST_NAMES = ["Terrell", "Ira", "Randall", "Mai", "Noor", "Olek", "Priya", "Sven", "Yuki", "Zora"]
TITLES = ["Miss", "M.A.", "Mrs.", "Mr.", "Dr.", "PhD"]
DOMAINS = ["yahoo.com", "yandex.com", "gmail.com", "example.org"]
GENDERS = ["Fluid", "Female", "Male", "Other"]
LANGUAGES = ["Tamil", "Croatian", "Luxembourgish", "Basque", "Hindi", "Welsh"]
DEGREES = ["PhD", "Master", "Bachelor"]
NATIONALITIES = ["Japanese", "Cameroonian", "Mexican", "Chilean", "Norwegian", "Thai"]
OCCUPATIONS = ["Trout Farmer", "Purchase Clerk", "Nursery Nurse", "Welder", "Cartographer"]
BLOOD_TYPES = ["O+", "O\u2212", "A+", "A\u2212", "B+", "AB+", "AB\u2212"]
MAKES = [("Mercury", "Sable"), ("BMW", "330"), ("Audi", "R8"), ("Cadillac", "CTS-V"),
         ("GMC", "1500 Club Coupe"), ("Buick", "Somerset")]
WORDS = ["ditto", "transform", "limber", "imposter", "quick", "powder", "metal", "red", "blue",
         "yellow", "gold", "silver", "crystal", "ruby", "sapphire", "emerald", "diamond", "pearl"]
STATS = ["hp", "attack", "defense", "special-attack", "special-defense", "speed"]
LEARN_METHODS = ["level-up", "machine", "egg", "tutor"]
SPRITES = ["front_default", "front_shiny", "front_female", "front_shiny_female", "back_default",
           "back_shiny", "back_female", "back_shiny_female"]


def load_json(name):
    with open(os.path.join(WORKLOADS, name), encoding="utf-8") as source:
        return json.load(source)


def configured_catalog():
    catalog = load_json("faker_configured_catalog.json")
    pokemon = {
        "name": "pokemon",
        "json_schema": load_json("pokemon.json"),
        "supported_sync_modes": ["full_refresh"],
    }
    catalog["streams"].append(
        {"stream": pokemon, "sync_mode": "full_refresh", "destination_sync_mode": "overwrite"})
    return catalog


def timestamp(seconds):
    return (EPOCH + datetime.timedelta(seconds=seconds)).isoformat()


def cursor(n, rnd):
    """The n-th record's created_at: increasing with n within a stream, faker's +00:00 form."""
    return timestamp(n * 61 + rnd.randint(0, 59))


def user(n, rnd):
    return {
        "id": n,
        "created_at": cursor(n, rnd),
        "updated_at": timestamp(n * 61 + 86400 * rnd.randint(1, 900)),
        "name": rnd.choice(FIRST_NAMES),
        "title": rnd.choice(TITLES),
        "age": rnd.randint(18, 90),
        "email": f"user{rnd.randint(1950, 2075)}+{n}@{rnd.choice(DOMAINS)}",
        "telephone": "-".join(f"{rnd.randint(0, 10**n - 1):0{n}d}" for n in (3, 3, 4)),
        "gender": rnd.choice(GENDERS),
        "language": rnd.choice(LANGUAGES),
        "academic_degree": rnd.choice(DEGREES),
        "nationality": rnd.choice(NATIONALITIES),
        "occupation": rnd.choice(OCCUPATIONS),
        "height": f"{rnd.uniform(1.4, 2.1):.2f}",
        "blood_type": rnd.choice(BLOOD_TYPES),
        "weight": rnd.randint(40, 120),
    }


def purchase(n, rnd):
    added = n * 61 + 86400 * rnd.randint(0, 300)
    purchased = added + 86400 * rnd.randint(1, 200) if rnd.random() < 0.8 else None
    returned = purchased + 86400 * rnd.randint(1, 30) if purchased and rnd.random() < 0.1 else None
    return {
        "id": n,
        "user_id": rnd.randint(1, n),
        "product_id": rnd.randint(1, 100),
        "created_at": cursor(n, rnd),
        "updated_at": timestamp(added),
        "added_to_cart_at": timestamp(added),
        "purchased_at": None if purchased is None else timestamp(purchased),
        "returned_at": None if returned is None else timestamp(returned),
    }


def product(n, rnd):
    make, model = rnd.choice(MAKES)
    return {
        "id": n,
        "make": make,
        "model": model,
        "year": rnd.randint(1990, 2012),
        "price": rnd.randint(5000, 90000),
        "created_at": cursor(n, rnd),
        "updated_at": timestamp(n * 61 + 86400 * rnd.randint(1, 600)),
    }


def named(kind, rnd, number=None):
    number = number if number is not None else rnd.randint(1, 900)
    return {"name": f"{rnd.choice(WORDS)}-{rnd.choice(WORDS)}", "url": f"{API}/{kind}/{number}/"}


def pokemon(n, rnd):
    """A PokeAPI /pokemon/{id} response without its big `sprites.other`/`versions` objects. The
    real API sends `is_default` (the schema declares "is_default " with a trailing space) and an
    integer held_items rarity (the schema wants a string: a string is sent, to stay valid)."""
    return {
        "id": n,
        "name": f"{rnd.choice(WORDS)}-{n}",
        "base_experience": rnd.randint(36, 340),
        "height": rnd.randint(1, 200),
        "is_default": rnd.random() < 0.9,
        "order": n,
        "weight": rnd.randint(1, 9999),
        "abilities": [
            {"ability": named("ability", rnd), "is_hidden": slot == 3, "slot": slot}
            for slot in range(1, rnd.randint(2, 3) + 1)
        ],
        "forms": [named("pokemon-form", rnd, n)],
        "game_indices": [
            {"game_index": rnd.randint(1, 500), "version": named("version", rnd, version)}
            for version in range(1, rnd.randint(4, 20) + 1)
        ],
        "held_items": [
            {
                "item": named("item", rnd),
                "version_details": [
                    {"rarity": str(rnd.choice([5, 50, 100])), "version": named("version", rnd)}
                    for _ in range(rnd.randint(1, 4))
                ],
            }
            for _ in range(rnd.randint(0, 2))
        ],
        "location_area_encounters": f"{API}/pokemon/{n}/encounters",
        "moves": [
            {
                "move": named("move", rnd),
                "version_group_details": [
                    {
                        "level_learned_at": rnd.randint(0, 100),
                        "move_learn_method": named("move-learn-method", rnd, rnd.randint(1, 4)),
                        "version_group": named("version-group", rnd, group),
                    }
                    for group in range(1, rnd.randint(1, 4) + 1)
                ],
            }
            for _ in range(rnd.randint(3, 12))
        ],
        "sprites": {
            name: None if "female" in name and rnd.random() < 0.7
            else f"https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon/{n}.png"
            for name in SPRITES
        },
        "species": named("pokemon-species", rnd, n),
        "stats": [
            {"base_stat": rnd.randint(5, 255), "effort": rnd.randint(0, 3),
             "stat": named("stat", rnd, k + 1) | {"name": stat}}
            for k, stat in enumerate(STATS)
        ],
        "types": [
            {"slot": slot, "type": named("type", rnd)} for slot in range(1, rnd.randint(1, 2) + 1)
        ],
    }


GENERATORS = {"users": user, "purchases": purchase, "products": product, "pokemon": pokemon}


def set_path(data, path, value):
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


# Per stream: (path, bad value, format only). Each introduces exactly one schema error.
BREAKS = {
    "users": [(["updated_at"], "2021-02-30T02:28:42+00:00", True),  # no 30th of February
              (["age"], "55", False),
              (["weight"], 72.5, False)],
    "purchases": [(["added_to_cart_at"], "2022-13-15T15:19:19+00:00", True),  # no 13th month
                  (["user_id"], "9", False)],
    "products": [(["updated_at"], "2021-04-31T22:13:44+00:00", True),  # no 31st of April
                 (["price"], "71337", False),
                 (["year"], None, False)],
    "pokemon": [(["moves", 0, "version_group_details", 0, "level_learned_at"], "12", False),
                (["stats", 5, "base_stat"], 1.5, False),
                (["abilities", 0, "ability"], "limber", False),
                (["sprites"], [], False)],
}


def record_message(i, stream, data):
    record = {"stream": stream, "data": data, "emitted_at": 1_700_000_000_000 + i}
    return {"type": "RECORD", "record": record}


def state_message(stream, value):
    stream_state = {"stream_descriptor": {"name": stream}, "stream_state": {"created_at": value}}
    return {"type": "STATE", "state": {"type": "STREAM", "stream": stream_state}}


def compact(message):
    return json.dumps(message, separators=(",", ":")) + "\n"


def write_transcript(path, count, invalid_every):
    rnd = random.Random(SEED)
    streams, weights = list(STREAM_WEIGHTS), list(STREAM_WEIGHTS.values())
    per_stream = dict.fromkeys(streams, 0)
    broken = dict.fromkeys(streams, 0)
    last_cursor = {}
    format_only = 0
    with open(path, "w", encoding="utf-8") as out:
        for i in range(count):
            stream = rnd.choices(streams, weights)[0]
            breaking = invalid_every and i % invalid_every == invalid_every - 1
            if breaking:  # the broken records go round the streams, so each has its share
                stream = streams[sum(broken.values()) % len(streams)]
            per_stream[stream] += 1
            data = GENERATORS[stream](per_stream[stream], rnd)
            if breaking:
                kinds = BREAKS[stream]
                key_path, value, is_format = kinds[broken[stream] % len(kinds)]
                set_path(data, key_path, value)
                broken[stream] += 1
                format_only += is_format
            out.write(compact(record_message(i, stream, data)))
            if stream != "pokemon":
                last_cursor[stream] = data["created_at"]
                if per_stream[stream] % STATE_EVERY == 0:
                    out.write(compact(state_message(stream, data["created_at"])))
        for stream, value in last_cursor.items():  # each incremental stream ends with a STATE
            out.write(compact(state_message(stream, value)))
    return {"records": count, "invalid": sum(broken.values()), "invalid_format_only": format_only,
            "records_by_stream": per_stream, "invalid_by_stream": broken}


def main():
    gen_common.generate(__doc__.splitlines()[0], configured_catalog, write_transcript)


if __name__ == "__main__":
    main()
