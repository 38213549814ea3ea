#!/usr/bin/env python3
"""Prints every failed or errored JUnit test case, with the first lines of its failure, from Gradle's XML reports.

`./locus test` calls this so that a CI log names the test that failed, not just a count."""
import glob
import os
import sys
import xml.etree.ElementTree as ET


def main(dirs):
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "*.xml"))):
            try:
                root = ET.parse(path).getroot()
            except ET.ParseError as e:
                print(f"[java] unreadable report {path}: {e}")
                continue
            for case in root.iter("testcase"):
                for kind in ("failure", "error"):
                    el = case.find(kind)
                    if el is None:
                        continue
                    name = f"{case.get('classname')}.{case.get('name')}"
                    text = (el.text or el.get("message") or "").strip().splitlines()
                    print(f"[java] FAILED {name} ({kind}, {case.get('time')} s)")
                    for line in text[:12]:
                        print(f"[java]     {line}")


if __name__ == "__main__":
    main(sys.argv[1:])
