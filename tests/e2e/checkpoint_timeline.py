#!/usr/bin/env python3
"""The checkpoint timeline of the reports, from real runs of the reference connector.

    checkpoint_timeline.py --conform BIN --connector BIN --fixtures DIR

Runs `conform run --only resume` three times: on the correct connector, with the fault
checkpoint_before_records (a STATE claims the records after it: resuming from it loses them)
and with resume_reemits (a resumed stream restarts one checkpoint early: records repeated).
Asserts that the JSON report's timeline of the uninterrupted read
- lists every STATE of the run (line, records before, streams) and one entry per resumed
  checkpoint, each naming a resumed run of the report;
- is all clean for the correct connector;
- names the checkpoint and count that the findings name: the first lost record's checkpoint and
  line, lost counts summing to state.resume_no_loss's occurrences; repeated counts summing to
  state.resume_exactly_once's;
and that `conform report` keeps the timeline and the Markdown summary names the lossy checkpoint.
"""
import os
import re
import sys

import harness

BASE_RUN = "full: read"


def run_resume(args, folder, fault):
    os.makedirs(folder)
    test_config = harness.write_test_config(folder, args.fixtures, connector=args.connector,
                                            fault=fault)
    report_path = os.path.join(folder, "report.json")
    completed = harness.run(
        [args.conform, "run", "--test-config", test_config, "--only", "resume",
         "--report-json", report_path, "--markdown", os.path.join(folder, "summary.md")],
        timeout=300)
    if not os.path.exists(report_path):
        sys.exit(f"FAIL: {fault or 'correct'}: no report (exit {completed.returncode}): "
                 f"{completed.stderr[-2000:]}")
    return harness.load_json(report_path), report_path


def scenario_of(report):
    return harness.scenario(report, "resume")


def check_of(scenario, check_id):
    return next(c for c in scenario["checks"] if c["id"] == check_id)


def base_timeline(scenario, problems, what):
    runs = {run["label"]: run for run in scenario["runs"]}
    base = runs.get(BASE_RUN)
    if base is None or "timeline" not in base:
        problems.append(f"{what}: no timeline for run {BASE_RUN!r}; runs: {sorted(runs)}")
        return None
    timeline = base["timeline"]
    if timeline["checkpoints_total"] != base["states"] or \
            len(timeline["checkpoints"]) != base["states"]:
        problems.append(f"{what}: {base['states']} STATEs, timeline lists "
                        f"{len(timeline['checkpoints'])} of {timeline['checkpoints_total']}")
    lines = [checkpoint["line"] for checkpoint in timeline["checkpoints"]]
    if lines != sorted(lines) or any(not c["all_streams"] and not c["streams"]
                                     for c in timeline["checkpoints"]):
        problems.append(f"{what}: checkpoints out of order or without streams: "
                        f"{timeline['checkpoints']}")
    if not timeline["resumes"]:
        problems.append(f"{what}: no resumed checkpoint in the timeline")
    for resume in timeline["resumes"]:
        checkpoint = timeline["checkpoints"][resume["checkpoint"] - 1]
        if (resume["line"], resume["records_before"]) != (checkpoint["line"],
                                                          checkpoint["records_before"]):
            problems.append(f"{what}: resume {resume} does not match checkpoint {checkpoint}")
        if resume["run"] not in runs:
            problems.append(f"{what}: resume names run {resume['run']!r}, not in the report")
    for label, run in runs.items():
        if label != BASE_RUN and run.get("timeline", {}).get("resumes"):
            problems.append(f"{what}: run {label!r} was not resumed from but has resumes")
    return timeline


def check_correct(report, problems):
    timeline = base_timeline(scenario_of(report), problems, "correct connector")
    if timeline is None:
        return 0
    unclean = [r for r in timeline["resumes"] if r["lost"] or r["repeated"]]
    if unclean:
        problems.append(f"correct connector: resumes not clean: {unclean}")
    return len(timeline["resumes"])


def check_lossy(report, summary, problems):
    scenario = scenario_of(report)
    timeline = base_timeline(scenario, problems, "checkpoint_before_records")
    if timeline is None:
        return None
    loss = check_of(scenario, "state.resume_no_loss")
    named = re.search(r"resuming from checkpoint (\d+) \(line (\d+)\)",
                      loss["examples"][0]["message"] if loss["examples"] else "")
    lossy = {r["checkpoint"]: r for r in timeline["resumes"] if r["lost"] > 0}
    if loss["status"] != "failed" or not named:
        problems.append(f"checkpoint_before_records: state.resume_no_loss is {loss['status']} "
                        f"with {loss['examples'][:1]}")
        return None
    checkpoint, line = int(named.group(1)), int(named.group(2))
    if checkpoint not in lossy or lossy[checkpoint]["line"] != line:
        problems.append(f"checkpoint_before_records: the finding names checkpoint {checkpoint} "
                        f"(line {line}); the timeline's lossy ones: {sorted(lossy)}")
    total = sum(r["lost"] for r in timeline["resumes"])
    if total != loss["occurrences"]:
        problems.append(f"checkpoint_before_records: the timeline lost {total} records, "
                        f"state.resume_no_loss counts {loss['occurrences']}")
    if any(r["repeated"] for r in timeline["resumes"]):
        problems.append("checkpoint_before_records: a resume repeated records")
    example = lossy.get(checkpoint, {}).get("lost_example", "")
    if example not in loss["examples"][0]["message"] or not example:
        problems.append(f"checkpoint_before_records: lost example {example!r} is not the "
                        f"finding's record")
    wanted = f"checkpoint {checkpoint} (stdout line {line}, after " \
             f"{lossy.get(checkpoint, {}).get('records_before')} records): lost " \
             f"{lossy.get(checkpoint, {}).get('lost')}"
    if wanted not in summary:
        problems.append(f"checkpoint_before_records: the Markdown summary lacks {wanted!r}")
    return checkpoint, lossy.get(checkpoint, {}).get("lost")


def check_repeating(report, problems):
    scenario = scenario_of(report)
    timeline = base_timeline(scenario, problems, "resume_reemits")
    if timeline is None:
        return 0
    once = check_of(scenario, "state.resume_exactly_once")
    total = sum(r["repeated"] for r in timeline["resumes"])
    if once["status"] == "passed" or total != once["occurrences"] or total == 0:
        problems.append(f"resume_reemits: the timeline repeated {total} records, "
                        f"state.resume_exactly_once ({once['status']}) counts "
                        f"{once['occurrences']}")
    if any(r["lost"] for r in timeline["resumes"]):
        problems.append("resume_reemits: a resume lost records")
    return total


def check_converted(args, report_path, folder, problems):
    converted = os.path.join(folder, "converted.json")
    completed = harness.run([args.conform, "report", report_path, "--json", converted],
                            timeout=60)
    if completed.returncode not in (0, 1) or not os.path.exists(converted):  # 1: a check failed
        problems.append(f"conform report failed ({completed.returncode}): "
                        f"{completed.stderr[-1000:]}")
        return
    before = [run.get("timeline") for run in scenario_of(harness.load_json(report_path))["runs"]]
    after = [run.get("timeline") for run in scenario_of(harness.load_json(converted))["runs"]]
    if before != after:
        problems.append("conform report changed the timelines")


def main():
    args = harness.reference_arguments().parse_args()
    problems = []
    with harness.temporary_folder("timeline") as folder:
        correct, _ = run_resume(args, os.path.join(folder, "correct"), "")
        clean = check_correct(correct, problems)
        lossy_folder = os.path.join(folder, "lossy")
        lossy, lossy_path = run_resume(args, lossy_folder, "checkpoint_before_records")
        with open(os.path.join(lossy_folder, "summary.md")) as source:
            lost = check_lossy(lossy, source.read(), problems)
        check_converted(args, lossy_path, lossy_folder, problems)
        repeating, _ = run_resume(args, os.path.join(folder, "repeating"), "resume_reemits")
        repeated = check_repeating(repeating, problems)
    if problems:
        sys.exit("FAIL: " + "\n  ".join(problems))
    print(f"ok: correct connector: {clean} resumes, all clean; checkpoint_before_records: "
          f"checkpoint {lost[0]} lost {lost[1]}, as the finding says; resume_reemits: "
          f"{repeated} repeated records, as state.resume_exactly_once counts; conform report "
          f"keeps the timeline")


if __name__ == "__main__":
    main()
