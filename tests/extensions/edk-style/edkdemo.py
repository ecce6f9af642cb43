#!/usr/bin/env python3
"""A Meltano extension written the way Meltano's EDK and its copier template write one (python3
stdlib only, so CI needs no typer, click or structlog). It behaves as an extension rendered from
the template at meltano/edk 214f3bc (typer 0.27, structlog 25.5) behaves, as measured in this
project's trial (see README.md):

* `edkdemo_extension` is a typer app: `--help` prints usage on stdout; `describe`, `invoke`,
  `initialize` are sub-commands; an unknown one prints click's usage error on stderr, exit 2.
* `describe --format=json` is indented JSON listing `pre_invoke` and `post_invoke`, which are hooks
  around `invoke`, not sub-commands (`edkdemo_extension pre_invoke --help` exits 2); plain
  `describe` prints the dataclasses' text (`Describe(...)`), the EDK's default format.
* `invoke` takes its arguments as click does with allow_extra_args: the first `--` is consumed.
* logs are structlog's: `TIMESTAMP [level    ] event key=value` on stderr when LOG_TIMESTAMPS and
  LOG_LEVELS are true, one JSON object per line with MELTANO_LOG_JSON=true; the wrapped program's
  output lines are logged as events, and the end of its output as one more, empty, event.
* `edkdemo_invoker ARGS` runs the wrapped program with ARGS unchanged and exits with its code.

Quirks (EDKDEMO_QUIRKS, comma separated), the template's own defects:
* `debug_env`: at LOG_LEVEL=debug, `invoke` logs its whole environment (the template's
  `log.debug("called", ..., env=os.environ)`), secrets included;
* `traceback_stdout`: a failing wrapped program ends in an uncaught exception whose traceback the
  invoker's logging prints on stdout (what the template does when the program cannot be found).
"""
import datetime
import json
import os
import subprocess
import sys

NAME = "edkdemo"
WRAPPED = "edktool"
QUIRKS = set(filter(None, os.environ.get("EDKDEMO_QUIRKS", "").split(",")))
LEVELS = ["debug", "info", "warning", "error", "critical"]


def flag(name):
    return os.environ.get(name, "").lower() in ("1", "true", "yes", "on")


def log(level, event, **fields):
    if LEVELS.index(level) < LEVELS.index(os.environ.get("LOG_LEVEL", "info").lower()):
        return
    now = datetime.datetime.now(datetime.timezone.utc).isoformat().replace("+00:00", "Z")
    if flag("MELTANO_LOG_JSON"):
        entry = {"event": event, **{k: str(v) for k, v in fields.items()}, "level": level,
                 "timestamp": now}
        print(json.dumps(entry), file=sys.stderr)
        return
    parts = []
    if flag("LOG_TIMESTAMPS"):
        parts.append(now)
    if flag("LOG_LEVELS"):
        parts.append(f"[{level:<9}]")
    parts.append(event)
    parts.extend(f"{key}={value}" for key, value in fields.items())
    print(" ".join(parts), file=sys.stderr)


def describe():
    return {"commands": [
        {"name": f"{NAME}_extension", "description": "extension commands",
         "commands": ["describe", "invoke", "pre_invoke", "post_invoke", "initialize"],
         "pass_through_cli": False},
        {"name": f"{NAME}_invoker", "description": "pass through invoker",
         "commands": [":splat"], "pass_through_cli": True}]}


def describe_text():
    entries = []
    for command in describe()["commands"]:
        kind = "InvokerCommand" if command["pass_through_cli"] else "ExtensionCommand"
        entries.append(f"    {kind}(name='{command['name']}', description="
                       f"'{command['description']}', commands={command['commands']}, "
                       f"pass_through_cli={command['pass_through_cli']})")
    return "Describe(\n  commands=[\n" + ",\n".join(entries) + "\n  ],\n)"


def usage(command=None):
    target = f"{NAME}_extension {command}" if command else f"{NAME}_extension"
    print(f"Usage: {target} [OPTIONS] COMMAND [ARGS]...\n\n"
          f" Simple Meltano extension that wraps the {WRAPPED} CLI.\n")


def no_such_command(name):
    print(f"Usage: {NAME}_extension [OPTIONS] COMMAND [ARGS]...\n"
          f"Try '{NAME}_extension --help' for help.\n\nError: No such command '{name}'.",
          file=sys.stderr)
    return 2


def run_wrapped(args, log_output):
    try:
        done = subprocess.run([WRAPPED, *args], capture_output=True, text=True)
    except FileNotFoundError:
        raise SystemExit(crash(f"No such file or directory: '{WRAPPED}'"))
    if log_output:
        for line in (done.stdout + done.stderr).splitlines():
            log("info", line)
        log("info", "")  # the end of the program's output, as the EDK's reader logs it
    if done.returncode != 0:
        if "traceback_stdout" in QUIRKS:
            return crash(f"Command '{WRAPPED}' returned non-zero exit status {done.returncode}.",
                         done.returncode)
        log("error", f"error invoking {WRAPPED}", returncode=done.returncode,
            error_message="edkdemo invocation failed")
    return done.returncode


def crash(message, code=1):
    """An uncaught exception: the invoker's logging writes its traceback to stdout."""
    print("Traceback (most recent call last):\n"
          '  File "edkdemo/extension.py", line 33, in invoke\n'
          "    self.edkdemo_invoker.run_and_log(command_name, *command_args)\n"
          f"subprocess.CalledProcessError: {message}")
    log("error", "invoke failed with uncaught exception, please report to maintainer")
    return code


def invoke(args):
    if args and args[0] == "--help":
        usage("invoke")
        return 0
    if "--" in args:  # click consumes the first `--` (allow_extra_args)
        args.remove("--")
    if not args:
        print("Error: Missing argument 'COMMAND_ARGS...'.", file=sys.stderr)
        return 2
    environment = dict(os.environ) if "debug_env" in QUIRKS else {}
    log("debug", "called", command_name=args[0], command_args=args[1:], env=environment)
    log("debug", "pass through invoker called", command_args=tuple(args))
    return run_wrapped(args, True)


def initialize(args):
    if args and args[0] == "--help":
        usage("initialize")
        return 0
    with open("edkdemo.yml", "a+") as project:
        project.seek(0)
        if not project.read():
            project.write("edkdemo: initialized\n")
    return 0


def extension(args):
    if not args or args[0] == "--help":
        usage()
        return 0
    command, rest = args[0], args[1:]
    if command == "describe":
        if rest and rest[0] == "--help":
            usage("describe")
            return 0
        as_json = "--format=json" in rest or rest[-2:] == ["--format", "json"]
        print(json.dumps(describe(), indent=2) if as_json else describe_text())
        return 0
    if command == "invoke":
        return invoke(rest)
    if command == "initialize":
        return initialize(rest)
    return no_such_command(command)


def invoker(args):
    return run_wrapped(args, False)


if __name__ == "__main__":
    executable = os.path.basename(sys.argv[0])
    sys.exit(invoker(sys.argv[1:]) if executable.endswith("_invoker") else extension(sys.argv[1:]))
