#!/usr/bin/env python3
"""Renders a failing run's HTML report in headless Chromium and checks what a reader sees.

    html_report_browser.py --conform BIN --connector BIN --fixtures DIR [--keep DIR]

Runs `conform run --html` on the reference connector with a fault that breaks AP-READ-2, loads
the report in Debian's chromium (--dump-dom, with a network log), and checks that:
- the rendered DOM shows the failing check, its clause text, expected versus seen, the transcript
  line and the rerun command (the JSON report's), and the certification verdict;
- the checkpoint timeline of the resume scenario's uninterrupted read is drawn (an SVG with a
  mark per resumed checkpoint) with its table, every resume "clean" as the JSON report says;
- the page cannot load anything: a strict Content-Security-Policy meta, no URL in any src/href/
  url(), and no request in Chromium's network log initiated by the page. A control page with two
  remote references proves that the network-log check catches page requests.
Exits 77 (skipped) when chromium is not installed (scripts/install-deps.sh installs it).
"""
import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser

import harness

FAULT = "record_schema_violation"
FAILING_CHECK = "read.records_match_schema"


def chromium_command(chromium, *arguments):
    command = [chromium, "--headless", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update"]
    if os.geteuid() == 0:
        command.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    return command + list(arguments)


def page_requests(net_log_path):
    """URLs the page itself asked for (Chromium's own update pings have no origin)."""
    with open(net_log_path) as source:
        log = json.load(source)
    names = {number: name for name, number in log["constants"]["logEventTypes"].items()}
    requests = []
    for event in log.get("events", []):
        params = event.get("params", {})
        if names.get(event["type"]) == "URL_REQUEST_START_JOB" and "url" in params and \
                params.get("initiator") != "not an origin":
            requests.append(params.get("url"))
    return requests


def render(chromium, page, folder, name):
    net_log = os.path.join(folder, f"{name}.netlog.json")
    completed = harness.run(
        chromium_command(chromium, "--dump-dom", f"--log-net-log={net_log}", f"file://{page}"),
        timeout=120)
    if completed.returncode != 0 or not completed.stdout.strip():
        sys.exit(f"FAIL: chromium could not render {page}: {completed.stderr[-2000:]}")
    return completed.stdout, page_requests(net_log)


class ReportReader(HTMLParser):
    """Collects the text of each failure box and of each rerun block, and every attribute URL."""

    def __init__(self):
        super().__init__()
        self.failures = {}
        self.reruns = []
        self.attribute_urls = []
        self.csp = None
        self._failure = None
        self._depth = 0
        self._rerun = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "meta" and attrs.get("http-equiv", "").lower() == "content-security-policy":
            self.csp = attrs.get("content")
        for name in ("src", "href", "srcset", "action", "data", "poster"):
            if name in attrs and not attrs[name].startswith("#"):
                self.attribute_urls.append(attrs[name])
        if tag == "div" and "failure" in attrs.get("class", "").split():
            self._failure = attrs.get("id", "")
            self._depth = 0
            self.failures[self._failure] = ""
        elif self._failure is not None and tag == "div":
            self._depth += 1
        if tag == "pre" and "rerun" in attrs.get("class", "").split():
            self._rerun = ""

    def handle_endtag(self, tag):
        if tag == "div" and self._failure is not None:
            if self._depth == 0:
                self._failure = None
            else:
                self._depth -= 1
        if tag == "pre" and self._rerun is not None:
            self.reruns.append(self._rerun)
            self._rerun = None

    def handle_data(self, data):
        if self._failure is not None:
            self.failures[self._failure] += data
        if self._rerun is not None:
            self._rerun += data


def check_report_page(dom, report):
    problems = []
    reader = ReportReader()
    reader.feed(dom)
    if not reader.csp or "default-src 'none'" not in reader.csp:
        problems.append(f"no strict Content-Security-Policy meta (found {reader.csp!r})")
    if reader.attribute_urls:
        problems.append(f"the page references URLs: {reader.attribute_urls[:5]}")
    if re.search(r"url\(|@import|https?://", dom, re.IGNORECASE):
        problems.append("the page contains url(), @import or an http(s) URL")
    if "<script" in dom.lower():
        problems.append("the page has a script")

    scenario = next(s for s in report["scenarios"] if s["id"] == "read")
    check = next(c for c in scenario["checks"] if c["id"] == FAILING_CHECK)
    box = next((text for key, text in reader.failures.items() if FAILING_CHECK.replace(".", "_")
                in key), None)
    if box is None:
        return problems + [f"no failure box for {FAILING_CHECK}; boxes: {list(reader.failures)}"]
    example = check["examples"][0]
    wanted = {
        "the check id": FAILING_CHECK,
        "the clause id": "AP-READ-2",
        "the clause text": "validates against its stream's `json_schema`",
        "expected versus seen": example["message"],
        "the stdout line": f"stdout line {example['line']}",
        "the transcript excerpt": example["excerpt"][:60],
        "the rerun command": scenario["rerun"],
    }
    for what, text in wanted.items():
        if text not in box:
            problems.append(f"the failure box lacks {what}: {text!r}")
    if scenario["rerun"] not in reader.reruns:
        problems.append(f"no rerun block reads {scenario['rerun']!r}")
    if not re.search(r"<td>core</td><td><span class=\"badge failed\">failed</span>", dom):
        problems.append("the certification table does not show core as failed")
    return problems + check_timeline(dom, report)


def check_timeline(dom, report):
    """The resume scenario's timeline: one mark per resumed checkpoint, each clean in words."""
    resume = next((s for s in report["scenarios"] if s["id"] == "resume"), None)
    base = next((r for r in resume["runs"] if r.get("timeline", {}).get("resumes")), None) \
        if resume else None
    if base is None:
        return ["the JSON report has no resumed checkpoint in scenario 'resume'"]
    resumes = base["timeline"]["resumes"]
    svg = re.search(r'<svg class="timeline"[^>]*aria-label="checkpoint timeline of '
                    + re.escape(base["label"]) + r'">(.*?)</svg>', dom, re.S)
    if not svg:
        return [f"no checkpoint timeline drawn for run {base['label']!r}"]
    problems = []
    marks = re.findall(r"<title>checkpoint (\d+) \(stdout line (\d+), after \d+ records\): "
                       r"([^<]*)</title>", svg.group(1))
    wanted = [(str(r["checkpoint"]), str(r["line"]), "clean") for r in resumes]
    if marks != wanted:
        problems.append(f"timeline marks {marks}, expected {wanted}")
    ticks = len(re.findall(r'<line x1="(\d+)" x2="\1" y1="\d+" y2="\d+" stroke="#57606a"',
                           svg.group(1)))
    if ticks == 0:
        problems.append("the timeline has no STATE tick")
    table = dom[svg.end():dom.find("</table>", svg.end())]
    if table.count('<span class="badge passed" style="white-space:nowrap">clean</span>') != len(resumes):
        problems.append(f"the timeline's table does not say 'clean' {len(resumes)} times")
    return problems


def main():
    parser = harness.reference_arguments()
    parser.add_argument("--keep", help="copy the report, DOM and a screenshot here")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("SKIP: chromium is not installed (scripts/install-deps.sh installs it)")
        sys.exit(77)

    with harness.temporary_folder("html") as folder:
        test_config = harness.write_test_config(folder, args.fixtures, connector=args.connector,
                                                fault=FAULT)
        page = os.path.join(folder, "report.html")
        report_path = os.path.join(folder, "report.json")
        completed = harness.run(
            [args.conform, "run", "--test-config", test_config, "--only", "core,resume",
             "--html", page, "--report-json", report_path])
        if completed.returncode != 1 or not os.path.exists(page):
            sys.exit(f"FAIL: expected a failing run with a report, got exit "
                     f"{completed.returncode}: {completed.stdout[-3000:]}{completed.stderr}")
        report = harness.load_json(report_path)

        dom, requests = render(chromium, page, folder, "report")
        problems = check_report_page(dom, report)
        if requests:
            problems.append(f"the report page made network requests: {requests}")

        control = os.path.join(folder, "control.html")
        with open(control, "w") as out:
            out.write('<!DOCTYPE html><img src="http://127.0.0.1:9/x.png">'
                      '<link rel="stylesheet" href="http://127.0.0.1:9/a.css">control')
        _, control_requests = render(chromium, control, folder, "control")
        if len(control_requests) < 2:
            problems.append(f"the network-log check missed the control page's requests: "
                            f"{control_requests}")

        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            shutil.copy(page, args.keep)
            with open(os.path.join(args.keep, "report.dom.html"), "w") as out:
                out.write(dom)
            subprocess.run(chromium_command(chromium, "--hide-scrollbars", "--window-size=1200,2400",
                                            f"--screenshot={os.path.join(args.keep, 'report.png')}",
                                            f"file://{page}"),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    if problems:
        sys.exit("FAIL: " + "\n  ".join(problems))
    print(f"ok: the rendered report shows {FAILING_CHECK}, its clause, expected versus seen and "
          f"the rerun command and the checkpoint timeline; no page request (control page: {len(control_requests)} caught)")


if __name__ == "__main__":
    main()
