"""bench/spark_latency.py's reading of the RM log and its figures (no cluster, no Spark)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import spark_latency as sl  # noqa: E402

APP = "application_1764435000000_0001"
LOG = [
    "2026-11-29 17:00:00,000 INFO  [IPC Server handler 1 on default port 40001] resourcemanager.ClientRMService: "
    "Application with id 1 submitted by user root",
    "2026-11-29 17:00:00,100 INFO  [RM Event dispatcher] rmapp.RMAppImpl: " + APP
    + " State change from SUBMITTED to ACCEPTED on event = APP_ACCEPTED",
    "2026-11-29 17:00:00,350 INFO  [AsyncScheduleThread] rmcontainer.RMContainerImpl: "
    "container_1764435000000_0001_01_000001 Container Transitioned from NEW to ALLOCATED",
    "2026-11-29 17:00:00,360 INFO  [AsyncScheduleThread] rmcontainer.RMContainerImpl: "
    "container_1764435000000_0001_01_000001 Container Transitioned from ALLOCATED to ACQUIRED",
    "2026-11-29 17:00:04,000 INFO  [IPC Server handler 3 on default port 40002] resourcemanager.RMAuditLogger: "
    "USER=root\tIP=127.0.0.1\tOPERATION=Register App Master\tTARGET=ApplicationMasterService\tRESULT=SUCCESS"
    "\tAPPID=" + APP + "\tAPPATTEMPTID=appattempt_1764435000000_0001_000001",
    # An unrelated line in between, and a stack-trace line without a timestamp.
    "2026-11-29 17:00:04,100 INFO  [main] some.Other: container_1764435000000_0001_01_000009 was mentioned",
    "\tat org.apache.hadoop.Foo(Foo.java:1)",
    "2026-11-29 17:00:05,250 INFO  [AsyncScheduleThread] rmcontainer.RMContainerImpl: "
    "container_1764435000000_0001_01_000003 Container Transitioned from NEW to ALLOCATED",
    "2026-11-29 17:00:04,750 INFO  [AsyncScheduleThread] rmcontainer.RMContainerImpl: "
    "container_1764435000000_0001_01_000002 Container Transitioned from NEW to ALLOCATED",
]


class ParseTest(unittest.TestCase):
    def test_records_of_one_app(self):
        rec = sl.parse_rm_log(LOG)[APP]
        self.assertIn(1, rec["registered"])
        self.assertEqual(sorted(rec["allocated"]), [(1, 1), (1, 2), (1, 3)])
        am, first = sl.latencies(rec)
        self.assertAlmostEqual(am, 0.25, places=3)
        # The earliest executor container, not the first one logged.
        self.assertAlmostEqual(first, 0.75, places=3)

    def test_container_ids_with_an_epoch(self):
        line = ("2026-11-29 17:00:01,000 INFO  [x] rmcontainer.RMContainerImpl: "
                "container_e02_1764435000000_0007_02_000005 Container Transitioned from NEW to ALLOCATED")
        rec = sl.parse_rm_log([line])["application_1764435000000_0007"]
        self.assertEqual(list(rec["allocated"]), [(2, 5)])

    def test_missing_records_give_none(self):
        only_am = LOG[:4]
        am, first = sl.latencies(sl.parse_rm_log(only_am)[APP])
        self.assertAlmostEqual(am, 0.25, places=3)
        self.assertIsNone(first)

    def test_first_registered_attempt_counts(self):
        lines = [
            "2026-11-29 17:00:10,000 INFO  [x] resourcemanager.RMAuditLogger: USER=root\tIP=127.0.0.1\t"
            "OPERATION=Register App Master\tTARGET=ApplicationMasterService\tRESULT=SUCCESS\tAPPID=" + APP
            + "\tAPPATTEMPTID=appattempt_1764435000000_0001_000002",
            "2026-11-29 17:00:10,500 INFO  [x] rmcontainer.RMContainerImpl: "
            "container_1764435000000_0001_02_000002 Container Transitioned from NEW to ALLOCATED",
            # Attempt 1's executor must not count against attempt 2's registration.
            "2026-11-29 17:00:09,000 INFO  [x] rmcontainer.RMContainerImpl: "
            "container_1764435000000_0001_01_000002 Container Transitioned from NEW to ALLOCATED",
        ]
        _, first = sl.latencies(sl.parse_rm_log(lines)[APP])
        self.assertAlmostEqual(first, 0.5, places=3)

    def test_failed_registration_is_not_a_registration(self):
        line = ("2026-11-29 17:00:10,000 WARN  [x] resourcemanager.RMAuditLogger: USER=root\tIP=127.0.0.1\t"
                "OPERATION=Register App Master\tTARGET=ApplicationMasterService\tRESULT=FAILURE\t"
                "DESCRIPTION=x\tPERMISSIONS=y\tAPPID=" + APP + "\tAPPATTEMPTID=appattempt_1764435000000_0001_000001")
        self.assertEqual(sl.parse_rm_log([line]).get(APP, {}).get("registered", {}), {})


class FiguresTest(unittest.TestCase):
    def test_summary(self):
        s = sl.summary([1.0, 2.0, 3.0, 4.0, 10.0])
        self.assertEqual(s["n"], 5)
        self.assertEqual(s["median"], 3.0)
        self.assertEqual(s["p90"], 10.0)
        self.assertEqual(s["mean"], 4.0)
        self.assertIsNone(sl.summary([])["median"])

    def test_percentile_nearest_rank(self):
        vals = list(range(1, 11))
        self.assertEqual(sl.percentile(vals, 90), 9)
        self.assertEqual(sl.percentile(vals, 50), 5)
        self.assertEqual(sl.percentile([7], 90), 7)

    def test_last_line_and_table(self):
        results = {
            "capacity-default": {"apps": 3, "failures": 0, "first": [0.5, 0.7, 0.9], "am": [0.1]},
            "locus-default": {"apps": 3, "failures": 1, "first": [0.35, 0.6], "am": []},
        }
        self.assertEqual(sl.last_line(results, 3),
                         "spark: apps=3 locus/capacity-default: first_executor_median=0.68")
        t = sl.table(results).splitlines()
        self.assertEqual(len(t), 4)
        self.assertIn("| 3 | 1 |", t[3])
        self.assertIn("0.70 s", t[2])

    def test_last_line_without_figures(self):
        results = {"capacity-default": {"apps": 2, "failures": 2, "first": [], "am": []}}
        self.assertEqual(sl.last_line(results, 2), "spark: apps=2 locus/capacity-default: first_executor_median=nan")

    def test_spark_conf_asks_no_dynamic_allocation_and_uploads_nothing(self):
        c = sl.spark_conf("/opt/ps", "/usr/lib/jvm/j17", 2)
        self.assertEqual(c["spark.dynamicAllocation.enabled"], "false")
        self.assertEqual(c["spark.executor.instances"], "2")
        self.assertEqual(c["spark.yarn.jars"], "local:/opt/ps/pyspark/jars/*")


if __name__ == "__main__":
    unittest.main()
