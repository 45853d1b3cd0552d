#!/usr/bin/env python3
"""Follows a first-hour tutorial of docs/porting-guide.md as a newcomer would, in an empty folder.

    python3 scripts/follow-tutorial.py python [--binary DIR] [--keep] [--guide FILE]

A tutorial is the code blocks of the guide that follow a marker naming its language, in order:

    <!-- tutorial python: file adapter.py -->      the next code block is written to adapter.py
    <!-- tutorial python: run -->                  the next code block runs in bash (-euo pipefail), must exit 0
    <!-- tutorial python: run, exits 1 -->         ... must exit 1
    <!-- tutorial python: run, prints "TEXT" -->   ... its output (stdout and stderr) must contain TEXT

In a block, `path/to/session-conformance` stands for the checkout (the reader's clone or unpacked archive);
the CLI is on PATH (the folder of --binary, default the checkout's .build/release, else .build/debug). Exits 0
when every step did what its marker says, 1 at the first step that did not (printing the step, its output's
tail and the folder), 2 for a usage error, a marker that cannot be followed or a tutorial with no steps.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r'^<!-- tutorial (?P<lang>[a-z0-9-]+): (?P<what>.*?) -->\s*$')
FENCE = re.compile(r'^(?P<fence>```+|~~~+)')


def fail(message):
    """A guide whose markers cannot be followed: a usage error (2)."""
    print(message, file=sys.stderr)
    sys.exit(2)


def steps(guide_path, language):
    """The (line, kind, argument, options, text) of each step of `language`'s tutorial."""
    lines = open(guide_path, encoding='utf-8').read().split('\n')
    found = []
    index = 0
    while index < len(lines):
        match = MARKER.match(lines[index])
        index += 1
        if not match or match.group('lang') != language:
            continue
        marker_line = index
        what = match.group('what').strip()
        while index < len(lines) and not lines[index].strip():
            index += 1
        fence = FENCE.match(lines[index]) if index < len(lines) else None
        if not fence:
            fail(f'{guide_path}:{marker_line}: error: no code block after the tutorial marker')
        closing = fence.group('fence')
        index += 1
        body = []
        while index < len(lines) and not lines[index].startswith(closing):
            body.append(lines[index])
            index += 1
        index += 1
        text = '\n'.join(body) + '\n'
        if what.startswith('file '):
            found.append((marker_line, 'file', what[5:].strip(), {}, text))
        elif what == 'run' or what.startswith('run,'):
            options = {}
            for part in what[4:].split(',') if what != 'run' else []:
                part = part.strip()
                exits = re.fullmatch(r'exits (\d+)', part)
                prints = re.fullmatch(r'prints "(.*)"', part)
                if exits:
                    options['exits'] = int(exits.group(1))
                elif prints:
                    options.setdefault('prints', []).append(prints.group(1))
                else:
                    fail(f'{guide_path}:{marker_line}: error: unknown option "{part}" (exits N, prints "TEXT")')
            found.append((marker_line, 'run', None, options, text))
        else:
            fail(f'{guide_path}:{marker_line}: error: a marker says "file NAME" or "run[, ...]", not "{what}"')
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('language')
    parser.add_argument('--binary', help='the folder holding session-conformance')
    parser.add_argument('--guide', default=os.path.join(ROOT, 'docs', 'porting-guide.md'))
    parser.add_argument('--keep', action='store_true', help='keep the folder (it is kept anyway when a step fails)')
    parser.add_argument('--discard', action='store_true', help='remove the folder even when a step fails')
    parser.add_argument('--timeout', type=float, default=900, help='seconds a step may take')
    arguments = parser.parse_args()
    plan = steps(arguments.guide, arguments.language)
    if not plan:
        print(f'follow-tutorial: {arguments.guide} has no tutorial for "{arguments.language}"', file=sys.stderr)
        return 2
    binary = arguments.binary
    if binary is None:
        for build in ('release', 'debug'):
            candidate = os.path.join(ROOT, '.build', build)
            if os.access(os.path.join(candidate, 'session-conformance'), os.X_OK):
                binary = candidate
                break
    if binary is None or not os.access(os.path.join(binary, 'session-conformance'), os.X_OK):
        print('follow-tutorial: no session-conformance found; build it (swift build) or pass --binary DIR', file=sys.stderr)
        return 2
    folder = tempfile.mkdtemp(prefix=f'tutorial-{arguments.language}-')
    environment = dict(os.environ)
    environment['PATH'] = os.path.abspath(binary) + os.pathsep + environment.get('PATH', '')
    environment['HOME'] = os.path.join(folder, '.home')
    os.makedirs(environment['HOME'])
    work = os.path.join(folder, 'work')
    os.makedirs(work)
    ok = False
    try:
        for number, (line, kind, argument, options, text) in enumerate(plan, 1):
            where = f'{os.path.relpath(arguments.guide, ROOT)}:{line}'
            if kind == 'file':
                path = os.path.join(work, argument)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, 'w', encoding='utf-8') as file:
                    file.write(text.replace('path/to/session-conformance', ROOT))
                print(f'step {number} ({where}): wrote {argument}')
                continue
            script = text.replace('path/to/session-conformance', ROOT)
            try:
                done = subprocess.run(['bash', '-euo', 'pipefail', '-c', script], cwd=work, env=environment,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=arguments.timeout)
                output, status = done.stdout.decode('utf-8', 'replace'), done.returncode
            except subprocess.TimeoutExpired as expired:
                output, status = (expired.stdout or b'').decode('utf-8', 'replace'), None
            expected = options.get('exits', 0)
            missing = [text for text in options.get('prints', []) if text not in output]
            if status != expected or missing:
                tail = '\n'.join(output.rstrip('\n').split('\n')[-40:])
                said = f'exited {status}' if status is not None else f'did not end in {arguments.timeout:g} s'
                reasons = [f'{said}, expected {expected}'] if status != expected else []
                reasons += [f'did not print "{text}"' for text in missing]
                print(f'{where}: error: step {number} {"; ".join(reasons)}\n{script}--- its output, last lines:\n{tail}',
                      file=sys.stderr)
                if not arguments.discard:
                    print(f'follow-tutorial: the folder is kept: {folder}', file=sys.stderr)
                    arguments.keep = True
                return 1
            print(f'step {number} ({where}): ran, exit {status}')
        ok = True
        print(f'follow-tutorial: {arguments.language}: {len(plan)} steps, every one as the guide says')
        return 0
    finally:
        if arguments.keep:
            if ok:
                print(f'follow-tutorial: the folder is kept: {folder}')
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
