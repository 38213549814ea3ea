"""`./locus test`'s summary (the `summarise` function of ./locus), run as the script runs it: under
`set -euo pipefail`, where a pipeline whose grep matched nothing would end the script before its
summary. Runs in `./locus test`'s Python step."""

import os
import re
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def summarise_function():
    with open(os.path.join(ROOT, "locus")) as f:
        text = f.read()
    m = re.search(r"^summarise\(\) \{\n.*?^\}\n", text, re.S | re.M)
    assert m, "no summarise() in ./locus"
    return m.group(0)


def run_summarise(cargo_log, py_log):
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for name, text in (("cargo.log", cargo_log), ("py.log", py_log)):
            p = os.path.join(d, name)
            with open(p, "w") as f:
                f.write(text)
            paths.append(p)
        script = ("set -euo pipefail\nROOT=%s\nlog() { printf '%%s\\n' \"$*\" >&2; }\n%s"
                  "summarise %s %s\necho after-summary\n"
                  % (d, summarise_function(), paths[0], paths[1]))
        return subprocess.run(["bash", "-c", script], capture_output=True, text=True)


CARGO_OK = ("test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n"
            "test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n")


class Summarise(unittest.TestCase):
    def test_a_green_run_prints_its_summary_and_goes_on(self):
        r = run_summarise(CARGO_OK, "....\n----\nRan 4 tests in 0.1s\n\nOK\n")
        self.assertEqual(0, r.returncode, r.stderr)
        self.assertIn("locus: 9 passed, 0 failed, 0 skipped", r.stdout)
        self.assertIn("after-summary", r.stdout)

    def test_failures_are_counted(self):
        r = run_summarise(
            CARGO_OK.replace("ok. 2 passed; 0 failed", "FAILED. 1 passed; 1 failed"),
            "Ran 4 tests in 0.1s\n\nFAILED (failures=1, errors=1)\nFAIL: test_x (t.T)\n")
        self.assertEqual(0, r.returncode, r.stderr)
        self.assertIn("locus: 6 passed, 3 failed, 0 skipped", r.stdout)

    def test_expected_failures_are_not_failures_and_unexpected_successes_are(self):
        # unittest counts an unexpected success as a failed run, an expected failure as fine.
        r = run_summarise(CARGO_OK, "Ran 8 tests in 0.1s\n\n"
                          "FAILED (failures=1, expected failures=4, unexpected successes=2)\n")
        self.assertEqual(0, r.returncode, r.stderr)
        self.assertIn("locus: 10 passed, 3 failed, 0 skipped", r.stdout)

    def test_skipped_and_ignored_tests_are_not_counted_as_passed(self):
        # A skipped Python test and an ignored Rust test ran nothing: they are skipped, not passed.
        r = run_summarise(CARGO_OK.replace("0 ignored", "2 ignored", 1),
                          "Ran 5 tests in 0.1s\n\nOK (skipped=3)\n"
                          "Ran 2 tests in 0.1s\n\nFAILED (failures=1, skipped=1)\n")
        self.assertEqual(0, r.returncode, r.stderr)
        self.assertIn("locus: 7 passed, 1 failed, 6 skipped", r.stdout)

    def test_a_run_whose_rust_did_not_compile_still_prints_a_summary(self):
        r = run_summarise("error[E0308]: mismatched types\n", "Ran 1 test in 0.0s\n\nOK\n")
        self.assertEqual(0, r.returncode, r.stderr)
        self.assertIn("locus: 1 passed, 0 failed, 0 skipped", r.stdout)


if __name__ == "__main__":
    unittest.main()
