#!/usr/bin/env python3
"""Reports name the connector's version: --connector-version, an image's labels, or "unknown".

    connector_version.py --conform BIN --fixtures DIR --connector BIN
        [--image IMAGE=VERSION=SOURCE ... --runtime RUNTIME --global-arg ARG]

Runs `conform run --only spec` and reads the version from the JSON report, the HTML report and the
Markdown summary, then renders all runs' JSON reports as one registry page with `conform report`
and finds each version in its table. Natively: "unknown" without the flag, the flag's value with
it. With --image: each image's expected version and the label it comes from ("-" for none).
"""
import html
import json
import os
import sys

import harness


def run_conform(args, folder, name, image=None, version_flag=None):
    run_folder = os.path.join(folder, name)
    os.mkdir(run_folder)
    test_config = harness.write_test_config(run_folder, args.fixtures, connector=args.connector,
                                            image=image, runtime=args.runtime,
                                            global_args=args.global_arg, claims="none")
    paths = {kind: os.path.join(folder, f"{name}.{kind}") for kind in ("json", "html", "md")}
    command = [args.conform, "run", "--test-config", test_config, "--only", "spec",
               "--report-json", paths["json"], "--html", paths["html"], "--markdown", paths["md"]]
    if version_flag:
        command += ["--connector-version", version_flag]
    completed = harness.run(command, timeout=300)
    if completed.returncode != 0:
        print(completed.stdout[-3000:], completed.stderr[-2000:])
        sys.exit(f"FAIL: {name}: conform exited {completed.returncode}")
    texts = {}
    for kind, path in paths.items():
        with open(path, encoding="utf-8") as source:
            texts[kind] = source.read()
    return paths["json"], texts


def version_problems(name, texts, version, source):
    problems = []
    metadata = json.loads(texts["json"])["metadata"]
    if (metadata.get("connector_version"), metadata.get("connector_version_source")) != (
            version, source):
        problems.append(f"{name}: JSON says {metadata.get('connector_version')!r} from "
                        f"{metadata.get('connector_version_source')!r}, expected {version!r} "
                        f"from {source!r}")
    shown = html.escape(version) if source else "unknown (no version label"
    if f"<td>Connector version</td><td>{'<code>' if source else ''}{shown}" not in texts["html"]:
        problems.append(f"{name}: the HTML report does not show version {version!r}")
    if f"**Connector version:** {version}" not in texts["md"]:
        problems.append(f"{name}: the Markdown summary does not show version {version!r}")
    return problems


def main():
    parser = harness.reference_arguments()
    parser.add_argument("--image", action="append", default=[],
                        help="IMAGE=VERSION=LABEL: an image and what its report must say")
    parser.add_argument("--runtime", default="podman")
    parser.add_argument("--global-arg", action="append")
    args = parser.parse_args()

    cases = []  # (name, image, flag, expected version, expected source)
    if args.image:
        for index, spec in enumerate(args.image):
            image, version, label = spec.split("=")
            source = "" if label == "-" else "image label " + label
            cases.append((f"image{index}", image, None, version, source))
    else:
        cases.append(("native", None, None, "unknown", ""))
        cases.append(("native-flag", None, "7.0.0-rc.1", "7.0.0-rc.1", "--connector-version"))

    problems = []
    with harness.temporary_folder("version") as folder:
        reports = []
        for name, image, flag, version, source in cases:
            path, texts = run_conform(args, folder, name, image, flag)
            reports.append(path)
            problems += version_problems(name, texts, version, source)
        registry = os.path.join(folder, "registry.html")
        completed = harness.run([args.conform, "report", *reports, "--html", registry],
                                timeout=120)
        if completed.returncode not in (0, 1) or not os.path.exists(registry):
            print(completed.stdout, completed.stderr)
            sys.exit(f"FAIL: conform report exited {completed.returncode}")
        with open(registry, encoding="utf-8") as source:
            page = source.read()
        for name, _, _, version, _ in cases:
            if f"<td>{html.escape(version)}</td>" not in page:
                problems.append(f"{name}: the registry page's table lacks version {version!r}")
    if problems:
        sys.exit("FAIL: " + "; ".join(problems))
    print("ok: " + ", ".join(f"{name} -> {version}" for name, _, _, version, _ in cases))


if __name__ == "__main__":
    main()
