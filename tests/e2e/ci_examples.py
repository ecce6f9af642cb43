#!/usr/bin/env python3
"""The CI recipes in examples/ run: their commands, executed, merge into the report of one run.

    ci_examples.py --conform BIN --connector BIN --fixtures DIR --examples DIR

For each recipe the test plays the CI system's part and runs the recipe's own shell text in bash
against the reference connector:

- GitHub Actions (examples/github-actions/conform.yml): every `run:` step of the `conform` job
  once per value of its shard matrix, then the `report` job's, with `${{ ... }}` expressions
  resolved (matrix, env, secrets, github.sha), step `env:`, `bash -eo pipefail` as GitHub runs a
  bash step, and the artifacts carried from `upload-artifact` paths to `download-artifact`.
- GitLab (examples/gitlab/.gitlab-ci.yml): the `conform` job's script lines once per
  CI_NODE_INDEX of its `parallel`, then the `report` job's, each line under `bash -eo pipefail`
  with the jobs' variables, the artifacts' paths carried between them.
- Kubernetes (examples/kubernetes/conform-shards.yaml): bundle-conform.sh makes the conform image's
  /opt/conform, the init container's command copies it into the tools volume, the connector
  container's `sh -c` command runs once per JOB_COMPLETION_INDEX with each volume's mountPath
  mapped to a folder (the test config's read-only), then the merge command of the file's header.

Substitutions, all stated here: the steps named "Build conform" are not run (the built BIN stands
for the build: .conform/build/src/app/conform and GitLab's $CONFORM point to it), `uses:` actions
are played by the test, and the connector runs as a native command instead of an image: the
command with the image flags `--image "$CONNECTOR_IMAGE" --container-runtime podman` (exactly
once) runs verbatim with conform's --dry-run (so the flags must be accepted), then for real with
those flags replaced by `--connector REFERENCE_CONNECTOR`. The Kubernetes pod runs on this host,
not inside the connector's image. Then each recipe's merged JSON report must equal the report of
one whole run of the same connector (clock values aside), and every report file the recipe
publishes must exist. A broken step (a wrong path, flag or artifact name) fails the test.
"""
import glob
import json
import os
import re
import shutil
import sys

import yaml

import harness
from shard_merge import without_clock, differences

IMAGE_FLAGS = '--image "$CONNECTOR_IMAGE" --container-runtime podman'
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class Failure(Exception):
    pass


def connector_repository(folder, args, config_path="secrets/config.json", keep_config=False):
    """A connector's repository as CI checks it out: conform.json naming the native connector,
    its config left for the CI job to write from a secret (unless keep_config)."""
    os.makedirs(folder, exist_ok=True)
    test_config = harness.write_test_config(folder, args.fixtures, connector=args.connector)
    config = harness.load_json(test_config)
    config["config"] = config_path
    with open(test_config, "w") as out:
        json.dump(config, out, indent=2)
    target = os.path.join(folder, config_path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if keep_config:
        shutil.move(os.path.join(folder, "config.json"), target)
    else:
        os.remove(os.path.join(folder, "config.json"))
    return test_config


def connector_config(args):
    with open(os.path.join(args.fixtures, "config.json")) as source:
        return source.read()


def natively(script, where, args):
    """`script` with the image flags replaced by the native connector's --connector."""
    if script.count(IMAGE_FLAGS) != 1:
        raise Failure(f"{where}: expected `{IMAGE_FLAGS}` once in the command the test runs "
                      f"natively; the example changed, update the test's substitution")
    return script.replace(IMAGE_FLAGS, f'--connector "{os.path.abspath(args.connector)}"')


def dry_run(script, where):
    """`script` verbatim, image flags included, with conform's --dry-run: it must accept them."""
    if script.count(" run --test-config") != 1:
        raise Failure(f"{where}: expected one `conform run --test-config` in the step")
    return script.replace(" run --test-config", " run --dry-run --test-config")


def run_bash(script, cwd, env, where):
    return harness.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                       cwd=cwd, env=env)


def require_success(completed, where):
    if completed.returncode != 0:
        raise Failure(f"{where} exited {completed.returncode}:\n{completed.stdout[-2000:]}\n"
                      f"{completed.stderr[-2000:]}")


def link_conform_checkout(workspace, conform):
    """.conform as the checkout of conform, with the built binary where the build step puts it."""
    app = os.path.join(workspace, ".conform", "build", "src", "app")
    os.makedirs(app)
    os.symlink(os.path.abspath(conform), os.path.join(app, "conform"))


def whole_run(argv, cwd, args, where):
    """The report of one whole run, made by the same command line as the shards' minus --shard."""
    completed = harness.run(argv, cwd=cwd)
    if completed.returncode not in (0, 1):
        raise Failure(f"{where}: the whole run exited {completed.returncode}: "
                      f"{completed.stderr[-2000:]}")


def compare_with_whole(merged_path, whole_path, where):
    merged = harness.load_json(merged_path)
    whole = harness.load_json(whole_path)
    if without_clock(merged) != without_clock(whole):
        found = differences(whole, merged)
        raise Failure(f"{where}: the merged report differs from the whole run's: "
                      f"{found[:2] or 'metadata or certification'}")
    if merged["metadata"]["shard"] != "":
        raise Failure(f"{where}: the merged report still says shard {merged['metadata']['shard']}")


# --- GitHub Actions ---------------------------------------------------------------------------

class GitHubRun:
    def __init__(self, workflow, args, folder):
        self.workflow = workflow
        self.args = args
        self.folder = folder
        self.artifacts = {}  # name -> folder
        self.secrets = {"CONNECTOR_CONFIG": connector_config(args)}
        self.github = {"sha": "0123456789abcdef0123456789abcdef01234567"}
        self.env = {name: self.resolve(str(value), {}) for name, value in
                    (workflow.get("env") or {}).items()}

    def resolve(self, text, matrix):
        def value(match):
            expression = match.group(1)
            scope, _, name = expression.partition(".")
            tables = {"matrix": matrix, "env": getattr(self, "env", {}), "secrets": self.secrets,
                      "github": self.github}
            if scope not in tables or name not in tables[scope]:
                raise Failure(f"GitHub Actions: the test cannot resolve ${{{{ {expression} }}}}")
            return str(tables[scope][name])
        return EXPRESSION.sub(value, text)

    def run_job(self, name, matrix, workspace):
        job = self.workflow["jobs"][name]
        summary = os.path.join(workspace, ".step-summary.md")
        for index, step in enumerate(job["steps"]):
            where = f"GitHub Actions job {name} {matrix or ''} step {step.get('name') or index}"
            if step.get("name") == "Build conform":
                continue
            if "uses" in step:
                self.play_action(step, matrix, workspace, where)
                continue
            script = self.resolve(step["run"], matrix)
            env = dict(os.environ, **self.env, GITHUB_STEP_SUMMARY=summary, CI="true")
            env.update({key: self.resolve(str(value), matrix)
                        for key, value in (step.get("env") or {}).items()})
            if IMAGE_FLAGS in script:
                require_success(run_bash(dry_run(script, where), workspace, env, where),
                                where + " (verbatim, --dry-run)")
                script = natively(script, where, self.args)
            require_success(run_bash(script, workspace, env, where), where)
        return summary

    def play_action(self, step, matrix, workspace, where):
        action = step["uses"].split("@")[0]
        settings = {key: self.resolve(str(value), matrix)
                    for key, value in (step.get("with") or {}).items()}
        if action == "actions/checkout":
            return  # the workspace was prepared as the checkouts leave it
        if action == "actions/upload-artifact":
            store = os.path.join(self.folder, "artifacts", settings["name"])
            os.makedirs(store, exist_ok=True)
            for path in settings["path"].split():
                if not os.path.exists(os.path.join(workspace, path)):
                    raise Failure(f"{where}: the artifact path {path} does not exist")
                shutil.copy(os.path.join(workspace, path), store)
            self.artifacts[settings["name"]] = store
            return
        if action == "actions/download-artifact":
            pattern = re.compile(settings["pattern"].replace("*", ".*") + "$")
            found = [name for name in self.artifacts if pattern.match(name)]
            if not found or settings.get("merge-multiple") != "True":
                raise Failure(f"{where}: downloads {found} (merge-multiple "
                              f"{settings.get('merge-multiple')})")
            for name in found:
                for path in glob.glob(os.path.join(self.artifacts[name], "*")):
                    shutil.copy(path, workspace)
            return
        raise Failure(f"{where}: the test does not know the action {action}")


def github_actions(args):
    with open(os.path.join(args.examples, "github-actions", "conform.yml")) as source:
        workflow = yaml.safe_load(source)
    shards = workflow["jobs"]["conform"]["strategy"]["matrix"]["shard"]
    if str(len(shards)) != str(workflow["env"]["SHARDS"]):
        raise Failure(f"GitHub Actions: matrix {shards} but SHARDS={workflow['env']['SHARDS']}")
    with harness.temporary_folder("gha") as folder:
        run = GitHubRun(workflow, args, folder)
        for shard in shards:
            workspace = os.path.join(folder, f"conform-{shard}")
            connector_repository(workspace, args)
            link_conform_checkout(workspace, args.conform)
            run.run_job("conform", {"shard": shard}, workspace)
        workspace = os.path.join(folder, "report")
        os.makedirs(workspace)
        link_conform_checkout(workspace, args.conform)
        summary = run.run_job("report", {}, workspace)
        published = os.path.join(folder, "artifacts", "conform-report")
        for name in ("conform.json.report", "conform.xml", "conform.html", "conform.md",
                     "conform.svg"):
            if not os.path.isfile(os.path.join(published, name)):
                raise Failure(f"GitHub Actions: the report job did not publish {name}")
        with open(summary) as source, open(os.path.join(published, "conform.md")) as md:
            if source.read() != md.read():
                raise Failure("GitHub Actions: the step summary is not the Markdown summary")

        whole = os.path.join(folder, "whole")
        connector_repository(whole, args, keep_config=True)
        link_conform_checkout(whole, args.conform)
        whole_run([".conform/build/src/app/conform", "run", "--test-config", "conform.json",
                   "--connector", os.path.abspath(args.connector), "--report-json", "whole.json"],
                  whole, args, "GitHub Actions")
        compare_with_whole(os.path.join(published, "conform.json.report"),
                           os.path.join(whole, "whole.json"), "GitHub Actions")
    return f"GitHub Actions: {len(shards)} shards and the merge job ran"


# --- GitLab -----------------------------------------------------------------------------------

def gitlab_job(pipeline, name, variables, workspace, args):
    job = pipeline[name]
    env = dict(os.environ, CI="true", **variables)
    for index, line in enumerate(job["script"]):
        where = f"GitLab job {name} script line {index + 1}"
        if IMAGE_FLAGS in line:
            require_success(run_bash(dry_run(line, where), workspace, env, where),
                            where + " (verbatim, --dry-run)")
            line = natively(line, where, args)
        require_success(run_bash(line, workspace, env, where), where)
    return job


def carry_artifacts(job, source, target, where):
    for pattern in job["artifacts"]["paths"]:
        matches = glob.glob(os.path.join(source, pattern))
        if not matches:
            raise Failure(f"{where}: the artifact path {pattern} matches nothing")
        for path in matches:
            shutil.copy(path, target)


def gitlab(args):
    with open(os.path.join(args.examples, "gitlab", ".gitlab-ci.yml")) as source:
        pipeline = yaml.safe_load(source)
    count = int(pipeline["conform"]["parallel"])
    variables = {name: str(value) for name, value in pipeline["variables"].items()}
    # The job image's conform (stated above), and what GitLab would put in the variables.
    variables.update(CONFORM=os.path.abspath(args.conform), CI_REGISTRY_IMAGE="registry/x",
                     CI_COMMIT_SHA="0123456789abcdef", CI_NODE_TOTAL=str(count))
    with harness.temporary_folder("gitlab") as folder:
        report_dir = os.path.join(folder, "report")
        os.makedirs(report_dir)
        for node in range(1, count + 1):
            workspace = os.path.join(folder, f"conform-{node}")
            connector_repository(workspace, args, keep_config=True)
            job = gitlab_job(pipeline, "conform", dict(variables, CI_NODE_INDEX=str(node)),
                             workspace, args)
            carry_artifacts(job, workspace, report_dir, f"GitLab conform job {node}")
        if pipeline["report"].get("needs") != ["conform"]:
            raise Failure("GitLab: the report job does not need the conform jobs")
        job = gitlab_job(pipeline, "report", variables, report_dir, args)
        published = os.path.join(folder, "published")
        os.makedirs(published)
        carry_artifacts(job, report_dir, published, "GitLab report job")
        junit = job["artifacts"]["reports"]["junit"]
        if not os.path.isfile(os.path.join(report_dir, junit)):
            raise Failure(f"GitLab: the JUnit report {junit} was not written")

        whole = os.path.join(folder, "whole")
        connector_repository(whole, args, keep_config=True)
        whole_run([os.path.abspath(args.conform), "run", "--test-config", "conform.json",
                   "--connector", os.path.abspath(args.connector), "--report-json", "whole.json"],
                  whole, args, "GitLab")
        compare_with_whole(os.path.join(published, "conform.json.report"),
                           os.path.join(whole, "whole.json"), "GitLab")
    return f"GitLab: {count} parallel jobs and the report job ran"


# --- Kubernetes -------------------------------------------------------------------------------

def kubernetes(args):
    folder_path = os.path.join(args.examples, "kubernetes")
    with open(os.path.join(folder_path, "conform-shards.yaml")) as source:
        text = source.read()
    job = yaml.safe_load(text)
    merge_line = next((line.lstrip("# ").strip() for line in text.splitlines()
                       if line.startswith("#") and " report /reports/" in line), None)
    if merge_line is None:
        raise Failure("Kubernetes: the header names no merge command")
    completions = int(job["spec"]["completions"])
    pod = job["spec"]["template"]["spec"]
    with harness.temporary_folder("k8s") as folder:
        mounts = {}
        for volume in pod["volumes"]:
            mounts[volume["name"]] = os.path.join(folder, "volumes", volume["name"])
            os.makedirs(mounts[volume["name"]])

        def mapped(command, container):
            for mount in container["volumeMounts"]:
                command = command.replace(mount["mountPath"], mounts[mount["name"]])
            return command

        # The conform image: /opt/conform made by the bundle script.
        opt = os.path.join(folder, "opt-conform")
        bundle = harness.run([os.path.join(folder_path, "bundle-conform.sh"), args.conform, opt],
                             timeout=120)
        require_success(bundle, "Kubernetes: bundle-conform.sh")
        init = pod["initContainers"][0]
        init_command = mapped(init["command"][-1], init).replace("/opt/conform", opt)
        require_success(run_bash(init_command, folder, dict(os.environ), "init container"),
                        "Kubernetes: the init container's command")

        work = mounts["test-config"]
        connector_repository(work, args, config_path="config.json", keep_config=True)
        os.chmod(work, 0o555)  # a Secret volume is read-only
        container = pod["containers"][0]
        if container["command"] != ["sh", "-c"]:
            raise Failure(f"Kubernetes: the connector container runs {container['command']}")
        for index in range(completions):
            script = mapped(container["args"][0], container)
            env = dict(os.environ, JOB_COMPLETION_INDEX=str(index))
            completed = harness.run(["sh", "-c", script], cwd=folder, env=env)
            require_success(completed, f"Kubernetes pod {index}")

        tools = mounts["tools"]
        merged = os.path.join(folder, "merged")
        os.makedirs(merged)
        merge = mapped(merge_line, container) + " --json merged.json"
        require_success(run_bash(merge, merged, dict(os.environ), "merge"), "Kubernetes: merge")
        for name in ("conform.html", "conform.xml"):
            if not os.path.isfile(os.path.join(merged, name)):
                raise Failure(f"Kubernetes: the merge did not write {name}")
        whole_run([os.path.join(tools, "run-conform"), "run", "--test-config",
                   os.path.join(work, "conform.json"), "--report-json",
                   os.path.join(folder, "whole.json")], folder, args, "Kubernetes")
        os.chmod(work, 0o755)
        compare_with_whole(os.path.join(merged, "merged.json"),
                           os.path.join(folder, "whole.json"), "Kubernetes")
    return f"Kubernetes: {completions} pods ran through run-conform and merged"


def main():
    parser = harness.reference_arguments()
    parser.add_argument("--examples", required=True)
    args = parser.parse_args()
    failures = []
    for recipe in (github_actions, gitlab, kubernetes):
        try:
            print("ok:", recipe(args))
        except Failure as failure:
            failures.append(str(failure))
    if failures:
        sys.exit("FAIL:\n" + "\n".join(failures))


if __name__ == "__main__":
    main()
