#!/usr/bin/env bash
# Throughput of `conform validate` against the validators a user would otherwise reach for, all
# measured in the same run on the same generated transcripts. See bench/README.md.
#
# usage: bench/run.sh [N]          N RECORD messages per workload (default 200000)
#        bench/run.sh --check [N]  the regression guard: N records (default 20000), conform against
#                                  the RapidJSON floors and ajv only; exits 1 on a gross regression
# env:   WORKLOADS="events multi"  the workloads to run, in this order (default both): events, one
#                                  generated stream (gen_transcript.py); multi, four interleaved
#                                  streams with real connector schemas (gen_multi.py)
#        CONFORM=path              conform binary (default build/src/app/conform, relative to the
#                                  repository root unless absolute)
#        RUNS=3                    timed runs per tool; the median is reported
#        PY_RECORDS=20000          Python validates only this prefix (it is ~20x slower); its
#                                  rate is per record, so it stays comparable
#        DATA_DIR=path             generated data and results (default bench/.data)
#        CHECK_LIMITS=0            --check reports its ratios and verdict but always exits 0 on
#                                  speed (the ctest smoke: correctness of the output, not speed)
set -euo pipefail

check_mode=
if [[ ${1:-} == --check ]]; then
    check_mode=1
    shift
fi
records=${1:-$([[ -n $check_mode ]] && echo 20000 || echo 200000)}
runs=${RUNS:-3}
py_records=${PY_RECORDS:-20000}
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(dirname "$bench_dir")
conform=${CONFORM:-build/src/app/conform}
[[ $conform == /* ]] || conform=$repo_root/$conform
python=/usr/bin/python3
data_dir=${DATA_DIR:-$bench_dir/.data}
# --check fails when conform's CPU time per record exceeds this many times the RapidJSON getline
# floor's, or exceeds ajv's: limits far from today's ratios, so that load cannot trip them.
check_floor_factor=5
read -r -a workloads <<<"${WORKLOADS:-events multi}"

say() { printf '%s\n' "$*" >&2; }
die() {
    say "run.sh: $*"
    exit 1
}

[[ $records =~ ^[1-9][0-9]*$ ]] || die "N must be a positive integer, got '$records'"
((${#workloads[@]} > 0)) || die "WORKLOADS names no workload"
for workload in "${workloads[@]}"; do
    [[ $workload == events || $workload == multi ]] ||
        die "unknown workload '$workload' in WORKLOADS (known: events multi)"
done
[[ -x $conform ]] || die "no conform binary at $conform (build it, or set CONFORM=path)"
[[ -n $check_mode ]] || "$python" -c 'import jsonschema' 2>/dev/null ||
    die "$python cannot import jsonschema (apt-get install python3-jsonschema)"

# ---------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------

# workload_sources WORKLOAD: the generator of WORKLOAD, then the data files it reads.
workload_sources() {
    case $1 in
    events) echo "$bench_dir/gen_transcript.py" "$bench_dir/gen_common.py" ;;
    multi) echo "$bench_dir/gen_multi.py" "$bench_dir/gen_common.py" "$bench_dir"/workloads/*.json ;;
    esac
}

# workload_title WORKLOAD: one line saying what the workload is (README: "What is measured").
workload_title() {
    case $1 in
    events) echo "one incremental stream \`events\`, a generated ~15-property draft-07 schema" ;;
    multi) echo "source-faker's users, purchases, products (incremental) and source-pokeapi's" \
        "pokemon (full refresh, big nested records), interleaved; real connector schemas" ;;
    esac
}

# generate WORKLOAD COUNT DIR [generator options]: (re)writes DIR unless it already holds this
# transcript.
generate() {
    local workload=$1 count=$2 dir=$3
    shift 3
    local sources stamp
    read -r -a sources <<<"$(workload_sources "$workload")"
    stamp="$workload $count $* $(cat "${sources[@]}" | sha1sum | cut -c1-12)"
    if [[ -f $dir/stamp && $(cat "$dir/stamp") == "$stamp" ]]; then
        return
    fi
    say "generating $count $workload records into ${dir#"$repo_root"/}"
    "$python" "${sources[0]}" "$count" "$dir" "$@"
    printf '%s\n' "$stamp" >"$dir/stamp"
}

# prefix_of SOURCE_DIR COUNT DIR: the lines of SOURCE_DIR's transcript up to its COUNT-th RECORD
# (the STATEs among them included).
prefix_of() {
    local source=$1 count=$2 dir=$3
    mkdir -p "$dir"
    cp "$source/catalog.json" "$dir/catalog.json"
    awk -v count="$count" 'index($0, "{\"type\":\"RECORD\"") == 1 && ++records > count { exit }
        { print }' "$source/records.jsonl" >"$dir/records.jsonl"
}

ensure_ajv() {
    command -v node >/dev/null || return 1
    if [[ ! -f $bench_dir/.node/node_modules/ajv-formats/package.json ]]; then
        [[ -z $check_mode ]] || return 1  # the guard never installs anything
        command -v npm >/dev/null || return 1
        say "installing ajv@8 ajv-formats@3 into bench/.node"
        npm install --prefix "$bench_dir/.node" --no-audit --no-fund --loglevel=error \
            ajv@8 ajv-formats@3 >&2 || return 1
    fi
}

# build_floor NAME [LIBRARY...]: compiles baselines/NAME.cpp (a parse-only floor) into
# bench/.build, linked with the libraries named (-lsimdjson); fails quietly without a compiler or
# the library's headers.
build_floor() {
    local source=$bench_dir/baselines/$1.cpp binary=$bench_dir/.build/$1
    local compiler=${CXX:-c++}
    shift
    command -v "$compiler" >/dev/null || return 1
    if [[ ! -x $binary || $source -nt $binary || $bench_dir/baselines/is_record.hpp -nt $binary ]]
    then
        mkdir -p "$bench_dir/.build"
        say "compiling baselines/$(basename "$source")"
        "$compiler" -O2 -DNDEBUG -std=c++20 "$source" "$@" -o "$binary" 2>/dev/null || return 1
    fi
}

# ---------------------------------------------------------------------------------------------
# Tools: name, records its input holds, the command (words quoted for `eval`)
# ---------------------------------------------------------------------------------------------

tool_names=()
tool_counts=()
tool_commands=()
notes=()

quote() { printf '%q ' "$@"; }

add_tool() {
    tool_names+=("$1")
    tool_counts+=("$2")
    shift 2
    tool_commands+=("$(quote "$@")")
}

# register_tools DIR COUNT PY_DIR PY_COUNT REPORT: every tool on the transcript in DIR (Python's
# validators on the one in PY_DIR); conform writes its report to REPORT.
register_tools() {
    local dir=$1 count=$2 py_dir=$3 py_count=$4 report=$5
    local py_script=$bench_dir/baselines/py_validate.py
    local ajv_script=$bench_dir/baselines/ajv_validate.js
    tool_names=()
    tool_counts=()
    tool_commands=()
    add_tool "cat" "$count" cat "$dir/records.jsonl"
    if [[ -n $parse_lines ]]; then
        add_tool "RapidJSON getline floor (C++)" "$count" "$parse_lines" "$dir/records.jsonl"
    fi
    if [[ -n $parse_buffer ]]; then
        add_tool "RapidJSON buffer floor (C++)" "$count" "$parse_buffer" "$dir/records.jsonl"
        add_tool "RapidJSON buffer floor, hardened" "$count" "$parse_buffer" \
            "$dir/records.jsonl" --hardened
    fi
    if [[ -n $parse_simdjson ]]; then  # not built for --check
        add_tool "simdjson iterate_many floor (C++)" "$count" "$parse_simdjson" \
            "$dir/records.jsonl"
        add_tool "simdjson DOM floor, line by line (C++)" "$count" "$parse_simdjson" \
            "$dir/records.jsonl" --dom-lines
        add_tool "simdjson into RapidJSON DOM floor, line by line (C++)" "$count" \
            "$parse_simdjson" "$dir/records.jsonl" --rapidjson-dom
    fi
    add_tool "conform validate" "$count" "$conform" validate --catalog "$dir/catalog.json" \
        "$dir/records.jsonl" --report-json "$report"
    add_tool "conform validate, one thread" "$count" env CONFORM_ANALYSIS_THREADS=1 "$conform" \
        validate --catalog "$dir/catalog.json" "$dir/records.jsonl" --report-json "$report"
    if [[ -n $have_ajv ]]; then
        add_tool "node JSON.parse only" "$count" node "$ajv_script" "$dir/catalog.json" \
            "$dir/records.jsonl" --parse-only
        add_tool "ajv 8 + ajv-formats" "$count" node "$ajv_script" "$dir/catalog.json" \
            "$dir/records.jsonl"
    fi
    [[ -z $check_mode ]] || return 0
    printf '{}\n' >"$data_dir/empty_config.json"
    add_tool "conform run --only read (live, pipe)" "$count" \
        env "CONFORM_BENCH_RECORDS=$dir/records.jsonl" "$conform" run \
        --connector "$bench_dir/baselines/cat_connector.sh" --config "$data_dir/empty_config.json" \
        --catalog "$dir/catalog.json" --only read --report-json "$report"
    add_tool "python json.loads only" "$count" "$python" "$py_script" "$dir/catalog.json" \
        "$dir/records.jsonl" --parse-only
    add_tool "python jsonschema" "$py_count" "$python" "$py_script" "$py_dir/catalog.json" \
        "$py_dir/records.jsonl"
    add_tool "python jsonschema --formats" "$py_count" "$python" "$py_script" \
        "$py_dir/catalog.json" "$py_dir/records.jsonl" --formats
}

# ---------------------------------------------------------------------------------------------
# Verdict checks: a tool that does not validate correctly is not timed
# ---------------------------------------------------------------------------------------------

# conform_verdict REPORT EXIT_CODE EXPECTED_INVALID: conform's exit code and its count of records
# that do not match their schema are what the input demands.
conform_verdict() {
    local report=$1 code=$2 expected_invalid=$3
    local want_code=0
    ((expected_invalid == 0)) || want_code=1
    ((code == want_code)) || die "conform exited $code, expected $want_code (report: $report)"
    "$python" - "$report" "$expected_invalid" <<'EOF' || die "conform's verdict is wrong"
import json, sys
report = json.load(open(sys.argv[1]))
expected = int(sys.argv[2])
checks = {c["id"]: c for s in report["scenarios"] for c in s["checks"]}
schema = checks.get("read.records_match_schema")
if schema is None or schema["status"] == "skipped":
    sys.exit("conform did not run read.records_match_schema")
if schema["occurrences"] != expected:
    sys.exit(f"conform found {schema['occurrences']} invalid records, expected {expected}")
others = [i for i, c in checks.items() if c["status"] == "failed" and i != "read.records_match_schema"]
if others:
    sys.exit(f"unexpected failed checks: {others}")
EOF
}

# baseline_verdict NAME OUTPUT EXPECTED
baseline_verdict() {
    [[ $2 == "$3" ]] || die "$1 printed '$2', expected '$3'"
}

# expected_output NAME COUNT INVALID FORMAT_ONLY: what a baseline must print for a transcript of
# COUNT records of which INVALID are broken, FORMAT_ONLY of them by a format error only.
expected_output() {
    local name=$1 count=$2 invalid=$3 format_only=$4
    case $name in
    *" only"* | *floor*) invalid=0 ;;
    "python jsonschema") invalid=$((invalid - format_only)) ;;
    esac
    echo "records=$count invalid=$invalid"
}

# run_and_check INDEX INVALID FORMAT_ONLY: runs one tool once, untimed, and dies unless its
# verdict is right; prints its peak RSS in MB ("-" without GNU time).
run_and_check() {
    local i=$1 invalid=$2 format_only=$3
    local name=${tool_names[$i]} count=${tool_counts[$i]} command=${tool_commands[$i]}
    local rss_file=$data_dir/rss output code=0
    if [[ -x /usr/bin/time ]]; then
        command="$(quote /usr/bin/time -f %M -o "$rss_file") $command"
    fi
    rm -f "$conform_report"
    if [[ $name == cat ]]; then
        eval "$command" >/dev/null || code=$?
    else
        output=$(eval "$command") || code=$?
    fi
    case $name in
    conform*) conform_verdict "$conform_report" "$code" "$invalid" ;;
    cat) ((code == 0)) || die "cat failed" ;;
    *) baseline_verdict "$name" "$output" "$(expected_output "$name" "$count" "$invalid" \
        "$format_only")" ;;
    esac
    if [[ -x /usr/bin/time ]]; then
        echo $(($(tail -n1 "$rss_file") / 1024))
    else
        echo "-"
    fi
}

# sanity_check WORKLOAD: a small transcript with every 250th record broken (the last one too, so
# a tool that stops early is caught); some of the breaks are date-time format errors. Every tool
# must report exactly the broken records it is able to see.
sanity_check() {
    local workload=$1 dir=$data_dir/$1/sanity count=4000 invalid format_only i
    generate "$workload" "$count" "$dir" --invalid-every 250
    read -r invalid format_only < <("$python" -c \
        'import json,sys; e=json.load(open(sys.argv[1])); print(e["invalid"], e["invalid_format_only"])' \
        "$dir/expected.json")
    register_tools "$dir" "$count" "$dir" "$count" "$conform_report"
    for i in "${!tool_names[@]}"; do
        run_and_check "$i" "$invalid" "$format_only" >/dev/null
    done
    say "sanity ($workload): $count records, $invalid broken ($format_only by format only):" \
        "every tool reports what it should"
}

# time_once INDEX: one run of tool INDEX, its output discarded: prints its wall and CPU (user +
# system) seconds. CPU time matters on a shared machine, where wall time includes waiting.
time_once() {
    local command=${tool_commands[$1]} TIMEFORMAT='%R %U %S' timing
    timing=$({ time eval "$command" >/dev/null 2>&1; } 2>&1) || return 1
    awk '{ print $1, $2 + $3 }' <<<"$timing"
}

# summarize_runs FILE: "median min max" of FILE's wall column and the mean of its CPU column.
summarize_runs() {
    sort -g "$1" | awk '{ wall[NR] = $1; cpu += $2 } END {
        m = NR % 2 ? wall[(NR + 1) / 2] : (wall[NR / 2] + wall[NR / 2 + 1]) / 2
        print m, wall[1], wall[NR], cpu / NR }'
}

# guard_verdict WORKLOAD=RESULTS...: for --check, conform's CPU time per record against the
# getline floor's and ajv's in this run, in each workload; exits 1 when a limit is exceeded in any
# of them (unless CHECK_LIMITS=0). CPU time, not wall: on a shared machine wall time mostly
# measures the other jobs.
guard_verdict() {
    "$python" - "$check_floor_factor" "${CHECK_LIMITS:-1}" "$@" <<'EOF'
import sys
floor_factor, enforce = float(sys.argv[1]), sys.argv[2] != "0"
limits = [("RapidJSON getline floor (C++)", floor_factor), ("ajv 8 + ajv-formats", 1.0)]
exceeded = []
for argument in sys.argv[3:]:
    workload, results = argument.split("=", 1)
    rows = {r[0]: r for r in (line.rstrip("\n").split("\t") for line in open(results))}
    def cpu_per_record(name):
        row = rows.get(name)
        return float(row[5]) / int(row[1]) if row else None
    conform = cpu_per_record("conform validate")
    for name, factor in limits:
        baseline = cpu_per_record(name)
        if baseline is None:
            print(f"check: {workload}: no '{name}' row in this run: its limit is not checked")
            continue
        ratio = conform / baseline
        verdict = "ok" if ratio <= factor else "EXCEEDED"
        print(f"check: {workload}: conform CPU per record = {ratio:.2f}x {name} "
              f"(limit {factor:g}x): {verdict}")
        if ratio > factor:
            exceeded.append(f"{name} ({workload})")
if not exceeded:
    print("check: passed")
elif enforce:
    print("check: FAILED: conform is grossly slower than " + ", ".join(exceeded))
    sys.exit(1)
else:
    print("check: limits exceeded but not enforced (CHECK_LIMITS=0)")
EOF
}

# print_table RESULTS: the Markdown table of one workload's timings.
print_table() {
    "$python" - "$1" <<'EOF'
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
conform = next(r for r in rows if r[0].startswith("conform"))
wall_per_record = float(conform[2]) / int(conform[1])
cpu_per_record = float(conform[5]) / int(conform[1])
print("| tool | records | wall s, median (min–max) | records/s | wall vs conform "
      "| CPU s | CPU vs conform | peak RSS MB |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for name, count, median, low, high, cpu, rss, *_ in rows:
    count, median, cpu = int(count), float(median), float(cpu)
    rate = f"{count / median:,.0f}" if name != "cat" else "–"
    print(f"| {name} | {count:,} | {median:.2f} ({float(low):.2f}–{float(high):.2f}) | {rate} "
          f"| {median / count / wall_per_record:.2f}× | {cpu:.2f} "
          f"| {cpu / count / cpu_per_record:.2f}× | {rss} |")
EOF
}

# print_goals RESULTS: issue 24's goals as ratios of this run's rows, each said met or not.
print_goals() {
    "$python" - "$1" <<'EOF'
import sys
rows = {r[0]: r for r in (line.rstrip("\n").split("\t") for line in open(sys.argv[1]))}
WALL, CPU = 2, 5
ROUNDS = {WALL: 7, CPU: 8}  # the columns of every round's times, in round order
def per_record(name, column):
    row = rows.get(name)
    return float(row[column]) / int(row[1]) if row else None
# Per round: the rounds interleave the tools, so a round's two times were measured moments apart,
# and the spread of the rounds' values shows how far the machine's drift moves a verdict.
def per_round(name, column):
    row = rows.get(name)
    return [float(t) / int(row[1]) for t in row[ROUNDS[column]].split(",")] if row else None
def spread(values, is_met, shown):
    met = sum(1 for v in values if is_met(v))
    return f"rounds {shown(min(values))}–{shown(max(values))}, met in {met} of {len(values)}"
def ratio_goal(label, other, column, goal, conform_slower=False):
    mine, theirs = per_record("conform validate", column), per_record(other, column)
    if mine is None or theirs is None:
        print(f"goal: {label}: not measured ({other} did not run)")
        return
    is_met = (lambda r: r <= goal) if conform_slower else (lambda r: r >= goal)
    of = (lambda m, t: m / t) if conform_slower else (lambda m, t: t / m)
    ratio = of(mine, theirs)
    relation = "at most" if conform_slower else "at least"
    ratios = [of(m, t) for m, t in zip(per_round("conform validate", column),
                                       per_round(other, column))]
    print(f"goal: {label}: {ratio:.2f}× ({relation} {goal}×): "
          f"{'met' if is_met(ratio) else 'NOT met'}"
          f" ({spread(ratios, is_met, lambda r: f'{r:.2f}×')})")
ratio_goal("validate faster than ajv, CPU", "ajv 8 + ajv-formats", CPU, 3)
ratio_goal("validate faster than ajv, wall", "ajv 8 + ajv-formats", WALL, 3)
ratio_goal("validate faster than python jsonschema, CPU", "python jsonschema", CPU, 40)
ratio_goal("validate over the RapidJSON buffer floor, CPU", "RapidJSON buffer floor (C++)", CPU,
           2.5, conform_slower=True)
for floor in ("simdjson iterate_many floor (C++)", "simdjson DOM floor, line by line (C++)",
              "simdjson into RapidJSON DOM floor, line by line (C++)"):
    mine, theirs = per_record("conform validate", CPU), per_record(floor, CPU)
    if None not in (mine, theirs):
        print(f"reference: validate over the {floor}, CPU: {mine / theirs:.2f}× (no goal)")
ajv_wall, ajv_cpu = per_record("ajv 8 + ajv-formats", WALL), per_record("ajv 8 + ajv-formats", CPU)
one_wall, one_cpu = (per_record("conform validate, one thread", column) for column in (WALL, CPU))
if None not in (ajv_wall, ajv_cpu, one_wall, one_cpu):
    print(f"note: validate on one thread (CONFORM_ANALYSIS_THREADS=1): {ajv_cpu / one_cpu:.2f}× "
          f"faster than ajv in CPU time, {ajv_wall / one_wall:.2f}× in wall time")
live = rows.get("conform run --only read (live, pipe)")
if live:
    rate = int(live[1]) / float(live[WALL])
    rates = [1 / t for t in per_round("conform run --only read (live, pipe)", WALL)]
    is_met = lambda r: r >= 500000
    rounds = spread(rates, is_met, lambda r: f"{r:,.0f}")
    print(f"goal: live read from a pipe: {rate:,.0f} records/s (at least 500,000):"
          f" {'met' if is_met(rate) else 'NOT met'} ({rounds})")
    # The one goal in records/s, not a ratio: how fast this host is at the moment shows in the
    # floor's rate, measured in the same rounds.
    floor = per_record("RapidJSON buffer floor (C++)", WALL)
    if floor is not None:
        print(f"reference: live read over the RapidJSON buffer floor's rate, wall: "
              f"{rate * floor:.2f}× (the floor parsed {1 / floor:,.0f} records/s; no goal)")
EOF
}

# bench_workload WORKLOAD: generates the workload's transcript, times every tool on it (after
# checking its verdict) and prints the workload's header line and table; the rows are kept in
# DATA_DIR/WORKLOAD/results.tsv for the guard.
bench_workload() {
    local workload=$1 work_dir=$data_dir/$1/n$records
    local py_dir=$data_dir/$1/n$records py_count=$records results=$data_dir/$1/results.tsv
    local workload_notes=() load_before load_after i median min max cpu note
    generate "$workload" "$records" "$work_dir"
    if [[ -z $check_mode ]] && ((records > py_records)); then
        py_dir=$data_dir/$workload/n${records}-prefix$py_records
        py_count=$py_records
        prefix_of "$work_dir" "$py_records" "$py_dir"
        workload_notes+=("the python jsonschema rows ran on the first $py_count records only\
 (Python is slow); records/s and the ratio are per record, so they compare directly")
    fi
    register_tools "$work_dir" "$records" "$py_dir" "$py_count" "$conform_report"

    local rss_of=() round
    for i in "${!tool_names[@]}"; do
        say "checking ${tool_names[$i]} on $workload (${tool_counts[$i]} records)"
        rss_of[i]=$(run_and_check "$i" 0 0)
        : >"$data_dir/timings.$i"
    done
    # Round by round, every tool once a round: the machine's speed drifts (other jobs, other
    # virtual machines on the host), and interleaving spreads the drift over every row alike.
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    for ((round = 1; round <= runs; round++)); do
        say "timing round $round of $runs on $workload"
        for i in "${!tool_names[@]}"; do
            time_once "$i" >>"$data_dir/timings.$i" ||
                die "timing ${tool_names[$i]} on $workload failed"
        done
    done
    load_after=$(cut -d' ' -f1-3 /proc/loadavg)
    : >"$results"
    for i in "${!tool_names[@]}"; do
        read -r median min max cpu <<<"$(summarize_runs "$data_dir/timings.$i")"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${tool_names[$i]}" \
            "${tool_counts[$i]}" "$median" "$min" "$max" "$cpu" "${rss_of[i]}" \
            "$(cut -d' ' -f1 "$data_dir/timings.$i" | paste -sd,)" \
            "$(cut -d' ' -f2 "$data_dir/timings.$i" | paste -sd,)" >>"$results"
    done

    echo
    echo "### workload $workload: $(workload_title "$workload")"
    echo
    echo "transcript: $records records, $(du -m "$work_dir/records.jsonl" | cut -f1) MB" \
        "($(($(stat -c %s "$work_dir/records.jsonl") / records)) bytes a record, STATEs" \
        "included); load average $load_before before, $load_after after"
    echo "verdicts checked: conform exit 0 with 0 invalid records; every baseline" \
        "records=N invalid=0"
    echo
    print_table "$results"
    if [[ -z $check_mode ]]; then
        echo
        print_goals "$results"
    fi
    for note in "${workload_notes[@]}"; do
        echo "note: $note"
    done
    guard_arguments+=("$workload=$results")
}

# The CMAKE_BUILD_TYPE of the build tree that holds the conform binary, if it is one.
conform_build_type() {
    local dir
    dir=$(dirname "$conform")
    while [[ $dir != / && ! -f $dir/CMakeCache.txt ]]; do
        dir=$(dirname "$dir")
    done
    sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$dir/CMakeCache.txt" 2>/dev/null | grep . ||
        echo "unknown build type"
}

# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------

mkdir -p "$data_dir"
conform_report=$data_dir/conform-report.json
parse_lines=
parse_buffer=
build_floor parse_lines && parse_lines=$bench_dir/.build/parse_lines ||
    notes+=("RapidJSON getline floor skipped: no C++ compiler or RapidJSON headers")
build_floor parse_buffer && parse_buffer=$bench_dir/.build/parse_buffer ||
    notes+=("RapidJSON buffer floor skipped: no C++ compiler or RapidJSON headers")
parse_simdjson=
if [[ -z $check_mode ]]; then
    build_floor parse_simdjson -lsimdjson && parse_simdjson=$bench_dir/.build/parse_simdjson ||
        notes+=("simdjson floors skipped: no C++ compiler or libsimdjson-dev")
fi
have_ajv=
if ensure_ajv; then
    have_ajv=1
    export NODE_PATH=$bench_dir/.node/node_modules
else
    notes+=("ajv skipped: node/npm missing or npm install failed")
fi

conform_version="$("$conform" --version), $(conform_build_type)"
conform_stamp=$(stat -c '%Y %s' "$conform")
for workload in "${workloads[@]}"; do
    sanity_check "$workload"
done

ajv_version=$(node -p 'require("ajv/package.json").version + " / ajv-formats " +
    require("ajv-formats/package.json").version' 2>/dev/null || echo "-")
echo "conform $conform_version ($conform)"
echo "workloads: ${workloads[*]}; $(nproc) cores" \
    "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
echo "node $(node --version 2>/dev/null || echo -), ajv $ajv_version;" \
    "python $("$python" -c 'import sys; print(sys.version.split()[0])'), jsonschema" \
    "$("$python" -c 'import importlib.metadata as m; print(m.version("jsonschema"))');" \
    "timing: bash's time, $runs interleaved rounds (every tool once a round), median"
guard_arguments=()
for workload in "${workloads[@]}"; do
    bench_workload "$workload"
done
echo
if [[ $(stat -c '%Y %s' "$conform" 2>/dev/null) != "$conform_stamp" ]]; then
    notes+=("$conform changed while the benchmark ran (rebuilt?): run it again")
fi
for note in "${notes[@]}"; do
    echo "note: $note"
done
echo "(vs conform: time per record relative to conform; above 1 is slower, below 1 faster;" \
    "CPU s is the mean user+system time of a run)"
[[ -z $check_mode ]] || guard_verdict "${guard_arguments[@]}"
