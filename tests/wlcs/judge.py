#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Judges a wlcs run's log against the expected-failures list.

    judge.py LOG LIST RUNNER_STATUS LABEL WHOLE_SUITE(0|1)

Prints one PASS or FAIL line per wlcs test group; then how many tests ran,
passed and were skipped, how many failures each reason group of the list
excused, and which wlcs test groups cannot test vellum at all; and last
"N passed, N failed" counting the groups. Exits 1 when anything failed.

Each entry of the list is TEST PATTERN | TEXT IN ITS OUTPUT | REASON. A
failing test is expected when an entry's pattern (fnmatch) matches its name
and the entry's text, when it has one, is in what the test printed: it must
fail for that reason. A test an entry names without a text must fail. With
the whole suite run, an entry that explains no failure is stale.

A "## NAME" line starts a reason group: the entries after it are its own. A
failure is counted in the group of the first entry that explains it. A group
whose name starts with "untestable" holds tests that fail before they check
anything of the compositor; their wlcs test groups are named in the summary.
"""
import fnmatch
import re
import sys

RESULT_LINE = re.compile(
    r"^\[ +(OK|FAILED|SKIP) +\] (\S+?),?(?: where GetParam\(\) = .*)? \(\d+ ?ms\)$"
)


def read_entries(list_path):
    entries = []
    group = "(no reason group)"
    with open(list_path) as listing:
        for number, line in enumerate(listing, 1):
            line = line.strip()
            if line.startswith("## "):
                group = line[3:].strip()
                continue
            if not line or line.startswith("#"):
                continue
            fields = [field.strip() for field in line.split("|", 2)]
            if len(fields) != 3 or not fields[0] or not fields[2]:
                raise ValueError(f"{list_path}:{number}: not PATTERN | TEXT | REASON")
            entries.append(
                {
                    "pattern": fields[0],
                    "text": fields[1],
                    "line": number,
                    "group": group,
                    "used": False,
                }
            )
    return entries


def read_results(log_path):
    """Each test's name -> (OK, FAILED, SKIP or UNFINISHED, what it printed)."""
    results = {}
    started, output = None, []
    with open(log_path, errors="replace") as log:
        for line in log:
            line = line.rstrip("\n")
            if line.startswith("[ RUN      ] "):
                started, output = line.split()[3], []
                continue
            match = RESULT_LINE.match(line)
            if match and match.group(2) == started:
                results[started] = (match.group(1), "\n".join(output))
                started = None
            elif started:
                output.append(line)
    if started:
        results[started] = ("UNFINISHED", "\n".join(output))
    return results


def main():
    log_path, list_path, status, label, whole_suite = sys.argv[1:6]
    try:
        entries = read_entries(list_path)
    except ValueError as error:
        print(f"FAIL {label} ({error})")
        print("0 passed, 1 failed")
        return 1
    results = read_results(log_path)

    groups = {}
    excused = {}  # test -> the entry that explains its failure
    for test, (result, text) in results.items():
        problems = groups.setdefault(test.rsplit(".", 1)[0], [])
        named = [e for e in entries if fnmatch.fnmatchcase(test, e["pattern"])]
        if result == "UNFINISHED":
            problems.append(f"{test} never finished (see {log_path})")
        elif result == "FAILED":
            explained = [e for e in named if e["text"] in text]
            for entry in explained:
                entry["used"] = True
            if explained:
                excused[test] = explained[0]
            else:
                problems.append(f"{test} fails")
        elif result == "OK":
            for entry in named:
                if not entry["text"]:
                    problems.append(f"{test} passes: take line {entry['line']} off the list")

    passed = failed = 0
    for group in sorted(groups):
        if groups[group]:
            failed += 1
            print(f"FAIL {label}/{group}")
            for problem in groups[group]:
                print(f"    {problem}")
        else:
            passed += 1
            print(f"PASS {label}/{group}")

    if not results:
        failed += 1
        print(f"FAIL {label} (no test ran: the runner exited with {status}; see {log_path})")
    with open(log_path, errors="replace") as log:
        report = next(
            (l.strip() for l in log if "ERROR: AddressSanitizer" in l or "runtime error:" in l),
            None,
        )
    if report:
        failed += 1
        print(f"FAIL {label} (a sanitizer report: {report}; see {log_path})")
    if whole_suite == "1":
        for entry in entries:
            if not entry["used"]:
                failed += 1
                print(
                    f"FAIL {label} ({list_path}:{entry['line']}: {entry['pattern']} "
                    "explains no failure now: take it off the list)"
                )

    ran = sum(1 for r, _ in results.values() if r != "SKIP")
    ok = sum(1 for r, _ in results.values() if r == "OK")
    skipped = sum(1 for r, _ in results.values() if r == "SKIP")
    unexplained = sum(1 for t, (r, _) in results.items() if r != "OK" and r != "SKIP") - len(
        excused
    )
    untestable = {t: e for t, e in excused.items() if e["group"].startswith("untestable")}
    testable = ran - len(untestable)
    print(
        f"{ran} wlcs tests ran: {ok} pass, {len(excused)} fail as listed, "
        f"{unexplained} fail otherwise; {skipped} more skipped (their protocols are not offered)"
    )
    print(
        f"of the {testable} that can test vellum, {ok} pass and "
        f"{len(excused) - len(untestable)} fail for the reasons listed"
    )
    print("failures excused, by reason group (tests/wlcs/expected-failures):")
    counts = {}
    for entry in excused.values():
        counts[entry["group"]] = counts.get(entry["group"], 0) + 1
    order = []
    for entry in entries:
        if entry["group"] not in order:
            order.append(entry["group"])
    for group in order:
        print(f"    {counts.get(group, 0):4d}  {group}")
    if untestable:
        names = sorted({t.rsplit(".", 1)[0] for t in untestable})
        print(
            f"untestable with wlcs 1.7 against any compositor that enforces xdg-shell: "
            f"{len(untestable)} tests of {len(names)} groups fail before they check "
            f"anything, as their surface builders attach a buffer before the first "
            f"configure; vellum's own tests check what they would have "
            f"(doc/conformance.md): {', '.join(names)}"
        )
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
