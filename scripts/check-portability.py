#!/usr/bin/env python3
"""Checks on Linux that the package would build on macOS (and its protocol modules on iOS): no Linux-only module or
symbol outside a guard that keeps it off Apple platforms (nor an Apple-only one off Linux), no API newer than
the `platforms:` Package.swift declares, and no process started in a module an iOS app links (AdapterKit,
ConformanceProtocol, JSONCore). Errors are printed in compiler form (file:line:column, the line, a caret);
exit 1 when there is one.

    python3 scripts/check-portability.py [ROOT]      # default: the repository this script is in

Scanned: ROOT/Sources, ROOT/Tests (not test fixtures) and ROOT/Examples, every .swift file. A line counts as
compiled on a platform unless the `#if` branches around it rule that platform out: `canImport(Glibc)`,
`canImport(Musl)`, `canImport(FoundationNetworking)` and `os(Linux)` hold on Linux only; `canImport(Darwin)` and
`os(macOS)`, `os(iOS)` ... on Apple platforms only; any other condition may hold on both."""

import os
import re
import sys

LINUX = "linux"
APPLE = "apple"

# Symbols that exist on Linux (glibc, musl, swift-corelibs) and not on Apple platforms.
LINUX_ONLY = [
    (re.compile(r"\bGlibc\b"), "the Glibc module"),
    (re.compile(r"\bMusl\b"), "the Musl module"),
    (re.compile(r"\bFoundationNetworking\b"), "FoundationNetworking (URLSession is in Foundation on Apple platforms)"),
    (re.compile(r"\bepoll_\w+"), "epoll"),
    (re.compile(r"\binotify_\w+"), "inotify"),
    (re.compile(r"\beventfd\b"), "eventfd"),
    (re.compile(r"\bsched_(?:getaffinity|setaffinity|getcpu)\b"), "sched_* affinity calls"),
    (re.compile(r"\baccept4\b"), "accept4"),
    (re.compile(r"\bpipe2\b"), "pipe2"),
    (re.compile(r"\bSOCK_CLOEXEC\b"), "SOCK_CLOEXEC"),
    (re.compile(r"\bMSG_NOSIGNAL\b"), "MSG_NOSIGNAL"),
    (re.compile(r"\bprctl\b|\bPR_SET_\w+"), "prctl"),
    (re.compile(r"\bpthread_condattr_setclock\b"), "pthread_condattr_setclock"),
    (re.compile(r"\bSOCK_(?:STREAM|DGRAM)\.rawValue\b"), "glibc's socket-type enum (an Int32 on Apple platforms)"),
    (re.compile(r"\bget_nprocs\b"), "get_nprocs"),
]
# Checked in string literals too: a path is a string.
LINUX_PATHS = [(re.compile(r"\"/proc/"), "/proc (no such file system on Apple platforms)")]

APPLE_ONLY = [
    (re.compile(r"\bDarwin\b"), "the Darwin module"),
    (re.compile(r"\bkqueue\b|\bkevent\b"), "kqueue"),
    (re.compile(r"\bSO_NOSIGPIPE\b"), "SO_NOSIGPIPE"),
    (re.compile(r"\bmach_\w+"), "Mach calls"),
    (re.compile(r"\bos_unfair_lock\w*"), "os_unfair_lock"),
    (re.compile(r"\b(?:UIKit|AppKit|Security|CryptoKit)\b(?=\s*$)"), "an Apple framework"),
]

# The modules a client hosted in an iOS app or XCTest links (AdapterKit and what its API exposes): no way to start
# or replace a process there.
IOS_MODULES = ("Sources/AdapterKit/", "Sources/ConformanceProtocol/", "Sources/JSONCore/")
NOT_ON_IOS = [
    (re.compile(r"\bProcess\s*\("), "Foundation.Process"),
    (re.compile(r"\bfork\s*\(|\bvfork\b"), "fork"),
    (re.compile(r"\bposix_spawn\w*"), "posix_spawn"),
    (re.compile(r"\bexecv\w*\s*\("), "exec"),
    (re.compile(r"\bwaitpid\b"), "waitpid"),
]

# APIs and the first macOS that has them (major version).
MACOS_API = [
    (re.compile(r"\bMutex\s*[<(]"), 15, "Synchronization.Mutex"),
    (re.compile(r"\bAtomic\s*[<(]"), 15, "Synchronization.Atomic"),
    (re.compile(r"\bInlineArray\b"), 26, "InlineArray"),
    (re.compile(r"\bexecutorPreference\s*:|\bTaskExecutor\b"), 15, "task executor preference (SE-0417)"),
    (re.compile(r"@Observable\b"), 14, "the Observation framework"),
    (re.compile(r"\b(?:Duration|ContinuousClock|SuspendingClock)\b"), 13, "Duration and the clocks"),
    (re.compile(r"\bRegex\s*<"), 13, "Regex"),
    (re.compile(r"\.formatted\("), 12, "FormatStyle"),
    (re.compile(r"\bString\(localized:"), 12, "String(localized:)"),
]
DEFAULT_MACOS = 10  # SwiftPM's deployment target when `platforms:` says nothing (10.13)

APPLE_NAMES = ("macOS", "iOS", "tvOS", "watchOS", "visionOS", "macCatalyst")


def truth(condition, platform):
    """Whether an `#if` condition can hold on `platform`. Unknown atoms may hold anywhere."""
    def atom(match):
        kind, name = match.group(1), match.group(2).strip()
        if kind == "canImport":
            if name in ("Glibc", "Musl", "FoundationNetworking", "Android"):
                return str(platform == LINUX)
            if name in ("Darwin", "UIKit", "AppKit", "ObjectiveC", "Security"):
                return str(platform == APPLE)
            return "True"
        if kind == "os":
            if name == "Linux":
                return str(platform == LINUX)
            if name in APPLE_NAMES:
                return str(platform == APPLE)
            return "False" if name in ("Windows", "Android", "WASI", "FreeBSD", "OpenBSD") else "True"
        return "True"
    text = re.sub(r"\b(canImport|os|arch|compiler|swift|targetEnvironment|hasFeature|hasAttribute)\(([^)]*)\)", atom, condition)
    text = re.sub(r"\b(?!True\b|False\b)[A-Za-z_]\w*\b", "True", text)
    text = text.replace("&&", " and ").replace("||", " or ")
    text = re.sub(r"!(?!=)", " not ", text)
    try:
        return bool(eval(text, {"__builtins__": {}}))  # noqa: S307 - built from True, False, and, or, not, parentheses
    except SyntaxError:
        return True


class Branches:
    """The `#if` nesting at a line: for each level, the conditions of its earlier branches and the current one."""

    def __init__(self):
        self.levels = []  # each: (earlier conditions, current condition or None for #else)

    def feed(self, directive):
        keyword, _, condition = directive.partition(" ")
        condition = condition.split("//")[0].strip()
        if keyword == "#if":
            self.levels.append(([], condition))
        elif keyword == "#elseif" and self.levels:
            earlier, current = self.levels[-1]
            self.levels[-1] = (earlier + [current], condition)
        elif keyword == "#else" and self.levels:
            earlier, current = self.levels[-1]
            self.levels[-1] = (earlier + [current], None)
        elif keyword == "#endif" and self.levels:
            self.levels.pop()

    def compiled_on(self, platform):
        for earlier, current in self.levels:
            if any(truth(condition, platform) and not self._unknown(condition) for condition in earlier):
                return False  # an earlier branch is taken there
            if current is not None and not truth(current, platform):
                return False
        return True

    @staticmethod
    def _unknown(condition):
        """A condition that may hold on both platforms: an earlier branch like it does not rule a later one out."""
        return truth(condition, LINUX) and truth(condition, APPLE)


def code_of(line, state):
    """The line without comments and with the contents of strings blanked, and the state at its end: None, "block"
    (inside /* */) or "triple" (inside a multi-line string literal)."""
    out = []
    index = 0
    in_string = False
    while index < len(line):
        if state == "block":
            end = line.find("*/", index)
            if end < 0:
                return "".join(out), state
            index, state = end + 2, None
            continue
        if state == "triple":
            end = line.find('"""', index)
            if end < 0:
                return "".join(out), state
            out.append(" " * (end - index) + '"""')
            index, state = end + 3, None
            continue
        char = line[index]
        if in_string:
            if char == "\\":
                out.append("  ")
                index += 2
                continue
            if char == '"':
                in_string = False
                out.append(char)
            else:
                out.append(" ")
            index += 1
            continue
        if line.startswith("//", index):
            break
        if line.startswith("/*", index):
            state = "block"
            index += 2
            continue
        if line.startswith('"""', index):
            out.append('"""')
            index += 3
            state = "triple"
            continue
        if char == '"':
            in_string = True
        out.append(char)
        index += 1
    return "".join(out), state


def declared_macos(root):
    try:
        text = open(os.path.join(root, "Package.swift"), encoding="utf-8").read()
    except OSError:
        return DEFAULT_MACOS, None
    match = re.search(r"\.macOS\(\s*\.v(\d+)", text)
    return (int(match.group(1)), "Package.swift") if match else (DEFAULT_MACOS, None)


def swift_files(root):
    for top in ("Sources", "Tests", "Examples"):
        base = os.path.join(root, top)
        for folder, folders, files in os.walk(base):
            folders[:] = sorted(name for name in folders if name not in (".build", "Fixtures") and not name.startswith("."))
            for name in sorted(files):
                if name.endswith(".swift"):
                    yield os.path.join(folder, name)


def check(root):
    macos, source = declared_macos(root)
    errors = []
    for path in swift_files(root):
        shown = os.path.relpath(path, root)
        branches = Branches()
        state = None
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, raw in enumerate(handle, 1):
                line = raw.rstrip("\n")
                stripped = line.strip()
                # A directive, unless the line is inside a comment or a multi-line string literal.
                if state is None and stripped.split(" ")[0] in ("#if", "#elseif", "#else", "#endif"):
                    branches.feed(stripped)
                    continue
                in_literal = state == "triple"
                code, state = code_of(line, state)
                on_apple, on_linux = branches.compiled_on(APPLE), branches.compiled_on(LINUX)

                def report(match, message):
                    errors.append((shown, number, match.start() + 1, message, line))

                if on_apple:
                    for pattern, what in LINUX_ONLY:
                        for match in pattern.finditer(code):
                            report(match, f"{what} outside a guard: macOS has no such thing; put it under "
                                          "'#if canImport(Glibc)' or '#if os(Linux)' with an Apple branch")
                    without_comments = re.sub(r"//.*", "", line) if "//" in line and "\"" not in line.split("//")[0] else line
                    for pattern, what in LINUX_PATHS:
                        for match in ([] if in_literal else pattern.finditer(without_comments)):
                            report(match, f"{what} outside a Linux guard")
                    for pattern, needs, what in MACOS_API:
                        for match in pattern.finditer(code):
                            if needs > macos:
                                declared = f"macOS {macos} ({source})" if source else "SwiftPM's default, macOS 10.13 (Package.swift declares no platforms)"
                                report(match, f"{what} needs macOS {needs}; the package supports {declared}")
                if on_apple and shown.replace(os.sep, "/").startswith(IOS_MODULES):
                    for pattern, what in NOT_ON_IOS:
                        for match in pattern.finditer(code):
                            report(match, f"{what} in a module an iOS app links: iOS starts no process; keep it out of "
                                          "AdapterKit, ConformanceProtocol and JSONCore, or under '#if os(macOS) || os(Linux)'")
                if on_linux:
                    for pattern, what in APPLE_ONLY:
                        for match in pattern.finditer(code):
                            report(match, f"{what} outside a guard: Linux has no such thing; put it under "
                                          "'#if canImport(Darwin)' with a Linux branch")
    return errors


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    errors = check(root)
    for path, line, column, message, text in errors:
        print(f"{path}:{line}:{column}: error: {message}\n{text}\n{' ' * (column - 1)}^")
    if errors:
        print(f"check-portability: {len(errors)} error{'s' if len(errors) != 1 else ''}")
        return 1
    print("check-portability: every platform-specific use is guarded and within the declared platforms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
