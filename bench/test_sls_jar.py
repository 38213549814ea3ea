#!/usr/bin/env python3
"""bench/sls.py's stale-jar check on a fake repository and fake jars (no SLS, no Gradle): a run
names the commit its shim jar was built from, and refuses a jar whose sources are not the working
tree's. Pure Python and git, about a second: python3 -m unittest bench/test_sls_jar.py
"""

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sls  # noqa: E402

SOURCES = "# the jar's sources\njava-shim/src/main\nrust-core/src\n"


def clean_env():
    """The environment without GIT_* (a hook's GIT_DIR or GIT_INDEX_FILE would point the fake
    repository's commands at the outer one)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


def git(root, *args):
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                          text=True, env=clean_env()).stdout.strip()


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def manifest(attrs):
    """A manifest as java.util.jar writes it: lines wrapped at 72 bytes, continued after a space."""
    out = "Manifest-Version: 1.0\r\n"
    for k, v in attrs.items():
        line = f"{k}: {v}"
        out += line[:72] + "\r\n"
        line = line[72:]
        while line:
            out += " " + line[:71] + "\r\n"
            line = line[71:]
    return out + "\r\n"


@unittest.skipUnless(shutil.which("git"), "git is not installed: nothing to fingerprint with")
class StaleJar(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="sls-jar-test-")
        self.root = os.path.join(self.tmp.name, "repo")
        os.makedirs(self.root)
        git(self.root, "init", "-q")
        git(self.root, "config", "user.email", "t@example.org")
        git(self.root, "config", "user.name", "t")
        write(self.root, "java-shim/jar-sources.txt", SOURCES)
        write(self.root, "java-shim/src/main/A.java", "class A {}\n")
        write(self.root, "rust-core/src/lib.rs", "pub fn f() {}\n")
        write(self.root, "docs/notes.md", "notes\n")
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "-m", "one")
        self.head = git(self.root, "rev-parse", "HEAD")

    def tearDown(self):
        self.tmp.cleanup()

    def clean_id(self):
        # Independent of sls.py: on a clean tree the working content is HEAD's.
        listing = subprocess.run(["git", "ls-tree", "HEAD", "--", "java-shim/src/main",
                                  "rust-core/src"], cwd=self.root, check=True,
                                 capture_output=True).stdout
        return hashlib.sha256(listing).hexdigest()

    def jar(self, **attrs):
        path = os.path.join(self.tmp.name, "locus-shim-0.1.0.jar")
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("META-INF/MANIFEST.MF", manifest(attrs))
            z.writestr("org/locus/yarn/LocusScheduler.class", b"\xca\xfe")
        return os.pathsep.join(["/elsewhere/hadoop-sls-3.4.3.jar", path, "/elsewhere/classes"])

    def built_now(self):
        """A jar built from the tree as it is (the fingerprint sls.py and the build compute)."""
        head, dirty, source_id = sls.source_fingerprint(self.root)
        return self.jar(**{"Locus-Commit": head, "Locus-Source-Dirty": str(dirty).lower(),
                           "Locus-Source-Id": source_id})

    def test_a_jar_of_the_clean_tree_is_named_by_its_commit_and_runs(self):
        info = sls.shim_provenance(self.jar(**{"Locus-Commit": self.head,
                                               "Locus-Source-Dirty": "false",
                                               "Locus-Source-Id": self.clean_id()}), self.root)
        self.assertIsNone(info["stale"])
        self.assertEqual(self.head[:7], info["label"])

    def test_a_source_changed_after_the_build_makes_the_jar_stale(self):
        cp = self.built_now()
        write(self.root, "rust-core/src/lib.rs", "pub fn f() { g() }\n")
        info = sls.shim_provenance(cp, self.root)
        self.assertIn("not the working tree's", info["stale"])
        self.assertIn("uncommitted source changes", info["stale"])

    def test_a_new_untracked_source_file_makes_the_jar_stale(self):
        cp = self.built_now()
        write(self.root, "java-shim/src/main/B.java", "class B {}\n")
        self.assertIsNotNone(sls.shim_provenance(cp, self.root)["stale"])

    def test_a_commit_of_a_source_change_makes_the_jar_stale(self):
        cp = self.built_now()
        write(self.root, "java-shim/src/main/A.java", "class A { int x; }\n")
        git(self.root, "commit", "-q", "-am", "two")
        info = sls.shim_provenance(cp, self.root)
        self.assertIn(f"built at {self.head[:7]}", info["stale"])
        self.assertIn(f"tree is at {git(self.root, 'rev-parse', 'HEAD')[:7]}", info["stale"])

    def test_a_touched_but_unchanged_source_keeps_the_jar_fresh(self):
        # A checkout rewrites files without changing them: content decides, not timestamps.
        cp = self.built_now()
        later = os.path.getmtime(cp.split(os.pathsep)[1]) + 3600
        os.utime(os.path.join(self.root, "rust-core/src/lib.rs"), (later, later))
        self.assertIsNone(sls.shim_provenance(cp, self.root)["stale"])

    def test_a_commit_outside_the_sources_keeps_the_jar_fresh_and_named_by_its_build(self):
        cp = self.built_now()
        write(self.root, "docs/notes.md", "more notes\n")
        git(self.root, "commit", "-q", "-am", "docs")
        info = sls.shim_provenance(cp, self.root)
        self.assertIsNone(info["stale"])
        self.assertEqual(self.head[:7], info["label"])
        err = io.StringIO()
        with redirect_stderr(err):
            sls.check_shim(info, measures_locus=True, allow_stale=False)
        self.assertIn(f"the working tree is at {git(self.root, 'rev-parse', 'HEAD')[:7]} with the "
                      "same jar sources", err.getvalue())

    def test_a_jar_built_from_uncommitted_sources_says_dirty(self):
        write(self.root, "rust-core/src/lib.rs", "pub fn f() { h() }\n")
        info = sls.shim_provenance(self.built_now(), self.root)
        self.assertIsNone(info["stale"])
        self.assertEqual(self.head[:7] + "+dirty", info["label"])

    def test_a_jar_that_records_nothing_is_stale(self):
        info = sls.shim_provenance(self.jar(), self.root)
        self.assertIn("records no source fingerprint", info["stale"])
        self.assertEqual("unknown", info["label"])

    def test_outside_a_git_checkout_a_jar_that_records_nothing_runs_with_a_warning(self):
        # A tarball of the sources: the build records "unknown" and sls.py cannot fingerprint
        # the tree either. Nothing says the jar is stale, so `./locus bench sls` must not refuse
        # the jar it just built; it says it cannot tell.
        tree = os.path.join(self.tmp.name, "tarball")
        os.makedirs(tree)
        write(tree, "java-shim/jar-sources.txt", SOURCES)
        write(tree, "rust-core/src/lib.rs", "pub fn f() {}\n")
        info = sls.shim_provenance(self.jar(**{"Locus-Commit": "unknown",
                                               "Locus-Source-Id": "unknown"}), tree)
        self.assertIsNone(info["stale"])
        err = io.StringIO()
        with redirect_stderr(err):
            sls.check_shim(info, measures_locus=True, allow_stale=False)
        self.assertIn("cannot tell", err.getvalue())

    def test_a_jar_that_records_its_sources_is_refused_when_git_fails_here(self):
        # git is there but cannot fingerprint this tree (here: a listed source path is gone).
        # The jar says which sources it holds, so it was built elsewhere: refused, not waved on.
        write(self.root, "java-shim/jar-sources.txt", SOURCES + "java-shim/gone\n")
        info = sls.shim_provenance(self.jar(**{"Locus-Commit": self.head,
                                               "Locus-Source-Dirty": "false",
                                               "Locus-Source-Id": "0" * 64}), self.root)
        self.assertIsNotNone(info["stale"])

    def test_a_stale_jar_is_refused_for_a_locus_run_unless_allowed(self):
        write(self.root, "rust-core/src/lib.rs", "pub fn f() { h() }\n")
        cp = self.jar(**{"Locus-Commit": self.head, "Locus-Source-Dirty": "false",
                         "Locus-Source-Id": self.clean_id()})
        info = sls.shim_provenance(cp, self.root)
        err = io.StringIO()
        with redirect_stderr(err), self.assertRaises(SystemExit) as refused:
            sls.check_shim(info, measures_locus=True, allow_stale=False)
        self.assertIn("refusing to measure a stale shim jar", str(refused.exception))
        with redirect_stderr(err):
            sls.check_shim(info, measures_locus=True, allow_stale=True)
            sls.check_shim(info, measures_locus=False, allow_stale=False)
        self.assertIn("WARNING: STALE SHIM JAR", err.getvalue())

    def test_the_table_and_the_sls_lines_name_the_jars_commit(self):
        info = sls.shim_provenance(self.built_now(), self.root)
        runs = {n: {"scheduler": n, "failure": None} for n in ("capacity-default", "locus-default")}
        out = io.StringIO()
        with redirect_stdout(out):
            sls.table(list(runs.values()), 10, 2, 2, info)
        self.assertIn(f"shim jar built at {self.head[:7]}", out.getvalue().splitlines()[0])
        # The last line keeps its established form for scripts; the jar's commit goes on its own line.
        self.assertEqual([f"sls: shim={self.head[:7]}",
                          "sls: nodes=10 locus/capacity-default: "
                          "node_update=nan allocate=nan throughput=nan latency=nan"],
                         sls.summary_lines(runs, 10, info))


if __name__ == "__main__":
    unittest.main()
