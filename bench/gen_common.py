"""What the transcript generators share: their command line and the files they write."""

import argparse
import json
import os


def generate(description, configured_catalog, write_transcript):
    """Parses `COUNT OUT_DIR [--invalid-every K]` and writes OUT_DIR/catalog.json (from
    configured_catalog()), OUT_DIR/records.jsonl (write_transcript(path, count, invalid_every)
    returns what it expects) and OUT_DIR/expected.json."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("count", type=int, help="number of RECORD messages")
    parser.add_argument("out_dir")
    parser.add_argument("--invalid-every", type=int, default=0, metavar="K")
    args = parser.parse_args()

    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "catalog.json"), "w", encoding="utf-8") as out:
        json.dump(configured_catalog(), out, indent=1)
    transcript = os.path.join(args.out_dir, "records.jsonl")
    expected = write_transcript(transcript, args.count, args.invalid_every)
    with open(os.path.join(args.out_dir, "expected.json"), "w", encoding="utf-8") as out:
        json.dump(expected, out)
        out.write("\n")
