#!/usr/bin/env python3
"""bench/sls.py's reading of a run's log: which failures it names, and that it re-runs only for
SLS 3.4.3's own AM-launcher race, never for a scheduler's failure. Pure Python, under a second:
python3 -m unittest bench/test_sls_retry.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sls  # noqa: E402

# As printed by a capacity-sync run (main at eeb0196), 34 s in.
RACE_LOG = """\
2026-11-23 21:02:31,796 WARN CSMappingPlacementRule: Unable to setup groups: No groups found for user user2
2026-11-23 21:02:31,802 ERROR AsyncDispatcher: Error in dispatcher thread
org.apache.hadoop.yarn.exceptions.YarnRuntimeException: Didn't find any AMSimulator for applicationId=application_1795467726058_0043
\tat org.apache.hadoop.yarn.sls.resourcemanager.MockAMLauncher.handle(MockAMLauncher.java:83)
\tat org.apache.hadoop.yarn.sls.resourcemanager.MockAMLauncher.handle(MockAMLauncher.java:41)
\tat org.apache.hadoop.yarn.event.AsyncDispatcher.dispatch(AsyncDispatcher.java:276)
"""

LOCUS_LOG = """\
2026-11-23 21:02:31,802 ERROR AsyncDispatcher: Error in dispatcher thread
org.locus.yarn.LocusException: core rejected the heartbeat of host-00020
\tat org.locus.yarn.LocusScheduler.handle(LocusScheduler.java:400)
"""


class Runs:
    """A stand-in for one SLS JVM per call: returns the figures of the next scripted run."""

    def __init__(self, *logs):
        self.logs = list(logs)
        self.calls = 0

    def __call__(self):
        log = self.logs[self.calls]
        self.calls += 1
        rc = 255 if log else 0
        return {"scheduler": "capacity-sync", "exit": rc,
                "launcher_race": sls.sls_launcher_race(log),
                "failure": sls.failure_reason(log, rc)}


class FailureReading(unittest.TestCase):
    def test_the_launcher_race_is_recognised_and_named(self):
        self.assertTrue(sls.sls_launcher_race(RACE_LOG))
        self.assertEqual("SLS MockAMLauncher race: Didn't find any AMSimulator for "
                         "applicationId=application_1795467726058_0043",
                         sls.failure_reason(RACE_LOG, 255))

    def test_the_message_without_mockamlauncher_below_it_is_not_the_race(self):
        # Only SLS's launcher throwing it counts: the same words logged by anything else are
        # that thing's failure.
        elsewhere = RACE_LOG.replace("sls.resourcemanager.MockAMLauncher", "locus.yarn.Other")
        self.assertFalse(sls.sls_launcher_race(elsewhere))

    def test_a_scheduler_failure_on_the_dispatcher_is_named_and_not_the_race(self):
        self.assertFalse(sls.sls_launcher_race(LOCUS_LOG))
        self.assertEqual("org.locus.yarn.LocusException: core rejected the heartbeat of "
                         "host-00020", sls.failure_reason(LOCUS_LOG, 255))

    def test_a_dead_main_thread_a_timeout_and_a_bad_exit_are_named(self):
        main = 'Exception in thread "main" java.lang.IllegalStateException: no trace\n'
        self.assertEqual(main.strip(), sls.failure_reason(main, "main thread died"))
        self.assertEqual("timed out", sls.failure_reason("", "timeout"))
        self.assertEqual("exit 137", sls.failure_reason("", 137))

    def test_a_clean_run_has_no_failure(self):
        self.assertIsNone(sls.failure_reason("2026-11-23 INFO SLSRunner: SLSRunner tears down.\n",
                                             0))


class Retry(unittest.TestCase):
    def test_the_launcher_race_is_run_again_once_and_reported(self):
        runs = Runs(RACE_LOG, "")
        fig = sls.run_with_retry(runs, "capacity-sync")
        self.assertEqual(2, runs.calls)
        self.assertIsNone(fig["failure"])
        self.assertIn("application_1795467726058_0043", fig["retried"])

    def test_the_first_attempts_run_directory_is_kept_beside_the_retry(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            run_dir = os.path.join(tmp, "capacity-sync")
            first = Runs(RACE_LOG, "")

            def run():
                os.makedirs(run_dir, exist_ok=True)
                return dict(first(), run_dir=run_dir)
            fig = sls.run_with_retry(run, "capacity-sync")
            self.assertTrue(os.path.isdir(run_dir + ".first-attempt"))
            self.assertIn(".first-attempt", fig["retried"])

    def test_a_second_race_is_reported_not_retried_again(self):
        runs = Runs(RACE_LOG, RACE_LOG)
        fig = sls.run_with_retry(runs, "capacity-sync")
        self.assertEqual(2, runs.calls)
        self.assertIn("MockAMLauncher race", fig["failure"])

    def test_a_scheduler_failure_is_never_retried(self):
        runs = Runs(LOCUS_LOG, "")
        fig = sls.run_with_retry(runs, "locus-default")
        self.assertEqual(1, runs.calls)
        self.assertIn("LocusException", fig["failure"])
        self.assertNotIn("retried", fig)


class LastLine(unittest.TestCase):
    def test_ratios_of_a_failed_run_are_nan_not_a_number_from_its_partial_figures(self):
        cap = {"node_update_median_us": 4.0, "allocate_median_us": 80.0, "latency_mean_ms": 100.0,
               "containers_allocated": 1000, "first_allocation_ms": 0,
               "last_allocation_ms": 10_000, "failure": None}
        loc = dict(cap, node_update_median_us=2.0, failure="timed out")
        self.assertEqual("node_update=nan allocate=nan throughput=nan latency=nan",
                         sls.ratios(loc, cap))
        loc["failure"] = None
        self.assertEqual("node_update=0.50 allocate=1.00 throughput=1.00 latency=1.00",
                         sls.ratios(loc, cap))


if __name__ == "__main__":
    unittest.main()
