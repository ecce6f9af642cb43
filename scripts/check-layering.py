#!/usr/bin/env python3
"""Enforces the layering of src/: a module includes only its own headers and those of the modules
its CMakeLists.txt lists in DEPS (a module that uses another's headers says so, even when it
would reach them through a third), and src/CMakeLists.txt adds the modules in dependency order,
which the DEPS make acyclic. Prints each violation and exits 1 when there is one."""
import pathlib
import re
import sys

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"
MODULE_CALL = re.compile(r"conform_module\((\w+)(.*?)\)\s*$", re.S | re.M)
INCLUDE = re.compile(r'^\s*#\s*include\s+"(\w+)/[^"]+"', re.M)


def declared_deps():
    deps = {}
    for cmake in SRC.glob("*/CMakeLists.txt"):
        text = cmake.read_text()
        module = cmake.parent.name
        found = MODULE_CALL.search(text)
        if found:
            words = found.group(2).split()
            listed = words[words.index("DEPS") + 1:] if "DEPS" in words else []
            deps[module] = {w[len("conform_"):] for w in listed if w.startswith("conform_")}
        else:
            # INTERFACE or executable modules: their conform_* links are their deps.
            deps[module] = set(re.findall(r"\bconform_(\w+)", text)) - {module, "settings"}
    return deps


def include_violations(deps):
    problems = []
    for module in sorted(deps):
        allowed = deps[module] | {module}
        for path in sorted((SRC / module).rglob("*")):
            if path.suffix not in (".cpp", ".hpp"):
                continue
            text = path.read_text()
            for match in INCLUDE.finditer(text):
                target = match.group(1)
                if target in deps and target not in allowed:
                    line = text.count("\n", 0, match.start()) + 1
                    problems.append(f"{path.relative_to(SRC.parent)}:{line}: module '{module}' "
                                    f"includes '{target}/', which is not among its DEPS")
    return problems


def order_violations(deps):
    text = (SRC / "CMakeLists.txt").read_text()
    order = re.findall(r"add_subdirectory\((\w+)\)", text)
    problems = []
    for position, module in enumerate(order):
        for dep in deps.get(module, ()):
            if dep in order and order.index(dep) > position:
                problems.append(f"src/CMakeLists.txt: '{module}' is added before '{dep}', "
                                f"which it depends on")
    return problems


def main():
    deps = declared_deps()
    problems = include_violations(deps) + order_violations(deps)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
