#!/usr/bin/env python3
"""bench/swim_to_sls.py: a SWIM trace as the SLS trace bench/sls.py replays (exact output for a
tiny sample), the time scale, the job-size bins, what it refuses, and bench/sls.py's reading of a
SWIM run. Pure Python, a few seconds (the FB-2009 slice): python3 -m unittest bench/test_swim_to_sls.py
"""

import json
import os
import random
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sls  # noqa: E402
import swim_to_sls as s  # noqa: E402

MIB = 1 << 20
# job0: nothing read or shuffled; job1: 200 MiB in, 1.5 GiB shuffled, 512 MiB out; job2 and job3
# read the same input path (100 MiB, then 300 MiB).
SAMPLE = ("job0\t100\t0\t0\t0\t0\n"
          "job1\t130\t30\t209715200\t1610612736\t536870912\n"
          "job2\t160\t30\t104857600\t0\t0\tp1\n"
          "job3\t200\t40\t314572800\t0\t5\tp1\n")

# The sample on 80 nodes (2 racks), seed 1, time scale 10. Durations worked by hand from the
# model (ms, then / 10, rounded): job0's map 1000 -> 100; job1's maps 1000 + 128/120 s + 128/20 s
# = 8466.7 -> 847 and 1000 + 72/120 s + 72/20 s = 5200 -> 520; its 2 reduces (one per GiB of
# shuffle) 1000 + 768/112 s + (768 + 256)/20 s = 59057.1 -> 5906, starting after its longest map;
# job2's map 1000 + 100/120 s + 100/20 s = 6833.3 -> 683; job3's 3 maps 847, 847 and 44 MiB's
# 3566.7 -> 357, its first on job2's block (same replicas). Arrivals (submit - 100 s) / 10.
GOLDEN = [
    '{"jobID":"job_1700000000000_0001","user":"swim","queue":"default","outcome":"SUCCESS","jobtype":"JAVA","submitTime":1700000000000,"launchTime":1700000000000,"finishTime":1700000000100,"totalMaps":1,"totalReduces":0,"mapTasks":[{"taskID":"task_1700000000000_0001_m_000000","taskType":"MAP","taskStatus":"SUCCESS","startTime":1700000000000,"finishTime":1700000000100,"attempts":[{"attemptID":"attempt_1700000000000_0001_m_000000_0","result":"SUCCESS","hostName":"/rack-000/host-00017","startTime":1700000000000,"finishTime":1700000000100}],"preferredLocations":[{"layers":["rack-000","host-00017"]},{"layers":["rack-001","host-00056"]},{"layers":["rack-001","host-00047"]}]}],"reduceTasks":[],"otherTasks":[]}',
    '{"jobID":"job_1700000000000_0002","user":"swim","queue":"default","outcome":"SUCCESS","jobtype":"JAVA","submitTime":1700000003000,"launchTime":1700000003000,"finishTime":1700000009753,"totalMaps":2,"totalReduces":2,"mapTasks":[{"taskID":"task_1700000000000_0002_m_000000","taskType":"MAP","taskStatus":"SUCCESS","startTime":1700000003000,"finishTime":1700000003847,"attempts":[{"attemptID":"attempt_1700000000000_0002_m_000000_0","result":"SUCCESS","hostName":"/rack-001/host-00063","startTime":1700000003000,"finishTime":1700000003847}],"preferredLocations":[{"layers":["rack-001","host-00063"]},{"layers":["rack-000","host-00030"]},{"layers":["rack-000","host-00024"]}]},{"taskID":"task_1700000000000_0002_m_000001","taskType":"MAP","taskStatus":"SUCCESS","startTime":1700000003000,"finishTime":1700000003520,"attempts":[{"attemptID":"attempt_1700000000000_0002_m_000001_0","result":"SUCCESS","hostName":"/rack-000/host-00026","startTime":1700000003000,"finishTime":1700000003520}],"preferredLocations":[{"layers":["rack-000","host-00026"]},{"layers":["rack-001","host-00071"]},{"layers":["rack-001","host-00041"]}]}],"reduceTasks":[{"taskID":"task_1700000000000_0002_r_000000","taskType":"REDUCE","taskStatus":"SUCCESS","startTime":1700000003847,"finishTime":1700000009753,"attempts":[{"attemptID":"attempt_1700000000000_0002_r_000000_0","result":"SUCCESS","hostName":"/rack-000/host-00001","startTime":1700000003847,"finishTime":1700000009753}]},{"taskID":"task_1700000000000_0002_r_000001","taskType":"REDUCE","taskStatus":"SUCCESS","startTime":1700000003847,"finishTime":1700000009753,"attempts":[{"attemptID":"attempt_1700000000000_0002_r_000001_0","result":"SUCCESS","hostName":"/rack-001/host-00048","startTime":1700000003847,"finishTime":1700000009753}]}],"otherTasks":[]}',
    '{"jobID":"job_1700000000000_0003","user":"swim","queue":"default","outcome":"SUCCESS","jobtype":"JAVA","submitTime":1700000006000,"launchTime":1700000006000,"finishTime":1700000006683,"totalMaps":1,"totalReduces":0,"mapTasks":[{"taskID":"task_1700000000000_0003_m_000000","taskType":"MAP","taskStatus":"SUCCESS","startTime":1700000006000,"finishTime":1700000006683,"attempts":[{"attemptID":"attempt_1700000000000_0003_m_000000_0","result":"SUCCESS","hostName":"/rack-001/host-00049","startTime":1700000006000,"finishTime":1700000006683}],"preferredLocations":[{"layers":["rack-001","host-00049"]},{"layers":["rack-000","host-00038"]},{"layers":["rack-000","host-00000"]}]}],"reduceTasks":[],"otherTasks":[]}',
    '{"jobID":"job_1700000000000_0004","user":"swim","queue":"default","outcome":"SUCCESS","jobtype":"JAVA","submitTime":1700000010000,"launchTime":1700000010000,"finishTime":1700000010847,"totalMaps":3,"totalReduces":0,"mapTasks":[{"taskID":"task_1700000000000_0004_m_000000","taskType":"MAP","taskStatus":"SUCCESS","startTime":1700000010000,"finishTime":1700000010847,"attempts":[{"attemptID":"attempt_1700000000000_0004_m_000000_0","result":"SUCCESS","hostName":"/rack-001/host-00049","startTime":1700000010000,"finishTime":1700000010847}],"preferredLocations":[{"layers":["rack-001","host-00049"]},{"layers":["rack-000","host-00038"]},{"layers":["rack-000","host-00000"]}]},{"taskID":"task_1700000000000_0004_m_000001","taskType":"MAP","taskStatus":"SUCCESS","startTime":1700000010000,"finishTime":1700000010847,"attempts":[{"attemptID":"attempt_1700000000000_0004_m_000001_0","result":"SUCCESS","hostName":"/rack-001/host-00057","startTime":1700000010000,"finishTime":1700000010847}],"preferredLocations":[{"layers":["rack-001","host-00057"]},{"layers":["rack-000","host-00014"]},{"layers":["rack-000","host-00037"]}]},{"taskID":"task_1700000000000_0004_m_000002","taskType":"MAP","taskStatus":"SUCCESS","startTime":1700000010000,"finishTime":1700000010357,"attempts":[{"attemptID":"attempt_1700000000000_0004_m_000002_0","result":"SUCCESS","hostName":"/rack-000/host-00013","startTime":1700000010000,"finishTime":1700000010357}],"preferredLocations":[{"layers":["rack-000","host-00013"]},{"layers":["rack-001","host-00041"]},{"layers":["rack-001","host-00074"]}]}],"reduceTasks":[],"otherTasks":[]}',
]


class Convert(unittest.TestCase):
    def convert(self, text=SAMPLE, nodes=80, seed=1, scale=10):
        return s.convert(s.parse_swim(text, "t.tsv"), nodes, seed, scale)

    def test_the_sample_becomes_exactly_this_trace(self):
        c = self.convert()
        self.assertEqual([json.dumps(j, separators=(",", ":")) for j in c["rumen"]], GOLDEN)
        self.assertEqual(c["jobs"]["job_1700000000000_0002"],
                         {"swim": "job1", "maps": 2, "reduces": 2, "bin": "medium"})
        self.assertEqual(c["stats"]["datasets"], 1)
        self.assertEqual(c["stats"]["bins"], {"small": 2, "medium": 2, "large": 0})

    def test_written_files_are_what_sls_reads(self):
        c = self.convert()
        with tempfile.TemporaryDirectory() as d:
            s.write(d, c)
            with open(os.path.join(d, "rumen.json")) as f:
                self.assertEqual(f.read().splitlines(), GOLDEN)
            with open(os.path.join(d, "nodes.json")) as f:
                racks = [json.loads(l) for l in f]
        self.assertEqual([r["rack"] for r in racks], ["rack-000", "rack-001"])
        self.assertEqual([len(r["nodes"]) for r in racks], [40, 40])
        self.assertEqual(racks[1]["nodes"][0], {"node": "host-00040"})

    def test_same_seed_same_trace_another_seed_other_hosts(self):
        self.assertEqual(self.convert()["rumen"], self.convert()["rumen"])
        self.assertNotEqual(self.convert(seed=2)["rumen"], self.convert()["rumen"])

    def test_block_boundaries_make_the_map_count(self):
        self.assertEqual(s.maps_of(0), 1)
        self.assertEqual(s.maps_of(128 * MIB), 1)
        self.assertEqual(s.maps_of(128 * MIB + 1), 2)
        self.assertEqual(s.reduces_of(0), 0)
        self.assertEqual(s.reduces_of(1), 1)
        self.assertEqual(s.reduces_of(1024 * MIB + 1), 2)

    def test_replicas_are_placed_as_hdfs_places_them(self):
        rng = random.Random(5)
        for nodes in (100, 1000):
            for _ in range(2000):
                r = s.place_block(nodes, rng)
                self.assertEqual(len(set(r)), 3, r)
                self.assertTrue(all(0 <= n < nodes for n in r), r)
                rack = [n // s.HOSTS_PER_RACK for n in r]
                self.assertNotEqual(rack[0], rack[1], r)
                self.assertEqual(rack[1], rack[2], r)
        # One rack, or fewer nodes than replicas: distinct nodes, as many as there are.
        self.assertEqual(sorted(s.place_block(3, rng)), [0, 1, 2])
        self.assertEqual(sorted(s.place_block(2, rng)), [0, 1])
        self.assertEqual(len(set(s.place_block(20, rng))), 3)

    def test_every_map_asks_for_its_first_replica(self):
        for job in self.convert(nodes=1000, scale=1)["rumen"]:
            for t in job["mapTasks"]:
                first = t["preferredLocations"][0]["layers"]
                self.assertEqual(t["attempts"][0]["hostName"], "/%s/%s" % tuple(first))


class TimeScale(unittest.TestCase):
    def test_arrivals_bound_the_default_scale(self):
        # 27,402 s of arrivals (FB-2009's first 2,000 jobs) into 540 s: 50.7 -> 51.
        self.assertEqual(s.default_scale(27402, 0, 1000), 51)
        self.assertEqual(s.default_scale(540, 0, 1000), 1)
        self.assertEqual(s.default_scale(0, 0, 1000), 1)

    def test_work_at_full_occupancy_bounds_it_too(self):
        # 100 nodes x 8 slots: 4,320,000 container-s need 5,400 s when full -> 10.
        self.assertEqual(s.default_scale(60, 4_320_000 * 1000, 100), 10)

    def test_scale_divides_arrivals_and_durations(self):
        one = s.convert(s.parse_swim(SAMPLE, "t"), 80, 1, 1)
        ten = s.convert(s.parse_swim(SAMPLE, "t"), 80, 1, 10)
        self.assertEqual(one["rumen"][3]["submitTime"] - s.EPOCH_MS, 100_000)
        self.assertEqual(ten["rumen"][3]["submitTime"] - s.EPOCH_MS, 10_000)
        m1 = one["rumen"][1]["mapTasks"][0]["attempts"][0]
        self.assertEqual(m1["finishTime"] - m1["startTime"], 8467)
        self.assertEqual(ten["stats"]["offered_load"], one["stats"]["offered_load"])
        self.assertAlmostEqual(ten["stats"]["scaled_container_s"] * 10,
                               one["stats"]["container_s"])

    def test_the_default_is_chosen_and_printed(self):
        c = s.convert(s.parse_swim(SAMPLE, "t"), 80, 1, None)
        self.assertEqual(c["stats"]["time_scale"], 1)
        text = "\n".join(s.describe(c["stats"]))
        self.assertIn("time scale 1/1 (chosen", text)
        self.assertIn("offered load 0.003", text)
        self.assertIn("small 1 map, medium 2-100 maps, large 101+ maps", text)

    def test_the_public_traces_arrive_within_the_budget(self):
        repo = os.path.dirname(os.path.dirname(os.path.abspath(s.__file__)))
        fb10 = os.path.join(repo, "sim", "workloads", "swim",
                            "FB-2010_withInputPaths_first_hour.tsv")
        st = s.convert(s.load(fb10), 1000, 9)["stats"]
        self.assertEqual(st["time_scale"], 7)
        self.assertLessEqual(st["scaled_span_s"], s.ARRIVAL_BUDGET_S)
        self.assertLessEqual(st["full_occupancy_s"], s.ARRIVAL_BUDGET_S)
        # Not shipped: beside the repository, as the simulator's --trace default has it.
        fb09 = os.path.join(repo, "..", "shared", "traces", "FB-2009_samples_24_times_1hr_0.tsv")
        if not os.path.exists(fb09):
            self.skipTest("FB-2009 trace not at " + fb09)
        st = s.convert(s.load(fb09, 2000), 1000, 9)["stats"]
        self.assertEqual(st["time_scale"], 51)
        self.assertLessEqual(st["scaled_span_s"], s.ARRIVAL_BUDGET_S)


class Bins(unittest.TestCase):
    def test_bins_by_map_count(self):
        self.assertEqual([s.size_bin(m) for m in (1, 2, 100, 101, 56262)],
                         ["small", "medium", "medium", "large", "large"])

    def test_bins_are_stated(self):
        self.assertEqual(s.bins_text(), "small 1 map, medium 2-100 maps, large 101+ maps")


class Refusals(unittest.TestCase):
    def test_a_short_line_is_named(self):
        with self.assertRaisesRegex(s.TraceError, r"t.tsv:2: 5 fields, expected 6"):
            s.parse_swim("job0\t1\t0\t1\t1\t1\njob1\t2\t1\t1\t1\n", "t.tsv")

    def test_a_bad_number_is_named_with_its_column(self):
        with self.assertRaisesRegex(s.TraceError, r"t.tsv:1: column 4 \(input bytes\) '-5'"):
            s.parse_swim("job0\t1\t0\t-5\t1\t1\n", "t.tsv")

    def test_bytes_past_the_limit(self):
        with self.assertRaisesRegex(s.TraceError, "column 5 .* more than the limit"):
            s.parse_swim("job0\t1\t0\t1\t%d\t1\n" % (s.MAX_JOB_BYTES + 1), "t.tsv")

    def test_an_empty_trace(self):
        with self.assertRaisesRegex(s.TraceError, "t.tsv: no jobs"):
            s.parse_swim("\n\n", "t.tsv")

    def test_too_many_tasks_in_one_job_is_refused_before_anything_is_built(self):
        big = s.MAX_TASKS_PER_JOB * 128 * MIB + 1
        with self.assertRaisesRegex(s.TraceError, r"line 1 \(job0\): 1000001 maps"):
            s.convert(s.parse_swim("job0\t1\t0\t%d\t0\t0\n" % big, "t"), 10, 1, 1)

    def test_bad_nodes_and_scale(self):
        jobs = s.parse_swim(SAMPLE, "t")
        with self.assertRaisesRegex(s.TraceError, "--nodes 0"):
            s.convert(jobs, 0, 1)
        with self.assertRaisesRegex(s.TraceError, "--time-scale 0"):
            s.convert(jobs, 10, 1, 0)


class ReadingARun(unittest.TestCase):
    def test_completion_times_are_joined_to_trace_jobs_through_the_job_map(self):
        with tempfile.TemporaryDirectory() as d:
            runtime = os.path.join(d, "jobruntime.csv")
            with open(runtime, "w") as f:
                f.write("JobID,real_start_time,real_end_time,simulate_start_time,"
                        "simulate_end_time\n"
                        "application_1_0001,0,0,1000,4000\n"
                        "application_1_0002,0,0,2000,12000\n"
                        "application_1_0003,0,0,2500,0\n")
            job_map = os.path.join(d, "job-map.csv")
            with open(job_map, "w") as f:
                f.write("application_1_0002,job_a\napplication_1_0001,job_b\n"
                        "application_1_0003,job_c\n")
            self.assertEqual(sls.job_times_by_trace_job(runtime, job_map),
                             {"job_a": 10.0, "job_b": 3.0})

    def fig(self, name, times, node_local):
        return {"scheduler": name, "failure": None, "job_times": times,
                "containers_allocated": 100, "first_allocation_ms": 0,
                "last_allocation_ms": 10_000, "node_local": node_local, "rack_local": 0,
                "off_switch": 100 - node_local}

    def test_figures_per_bin_and_the_last_line(self):
        jobs = {"a": {"bin": "small"}, "b": {"bin": "small"}, "c": {"bin": "large"},
                "d": {"bin": "medium"}}
        cs = self.fig("capacity-default", {"a": 2.0, "b": 4.0, "c": 30.0, "d": 4.0}, 40)
        lo = self.fig("locus-default", {"a": 1.0, "b": 2.0, "c": 33.0}, 60)
        for f in (cs, lo):
            f["swim"] = sls.swim_figures(f, jobs)
        self.assertEqual(cs["swim"]["all"]["mean"], 10.0)
        self.assertEqual(cs["swim"]["small"], {"n": 2, "of": 2, "mean": 3.0, "p50": 2.0,
                                               "p95": 4.0, "p99": 4.0})
        self.assertEqual((lo["swim"]["medium"]["n"], lo["swim"]["medium"]["of"]), (0, 1))
        self.assertEqual(lo["swim"]["all"]["p95"], 33.0)
        line = sls.swim_summary({"capacity-default": cs, "locus-default": lo}, "fb.tsv", 100)
        self.assertEqual(line, "sls: trace=fb.tsv nodes=100 locus/capacity-default: "
                               "jct_mean=1.20 jct_p95=1.10 throughput=1.00 node_local=1.50")

    def test_a_failed_run_gives_nan_not_numbers(self):
        cs = self.fig("capacity-default", {"a": 2.0}, 40)
        lo = dict(self.fig("locus-default", {"a": 1.0}, 60), failure="timed out")
        for f in (cs, lo):
            f["swim"] = sls.swim_figures(f, {"a": {"bin": "small"}})
        self.assertEqual(sls.swim_summary({"capacity-default": cs, "locus-default": lo}, "x", 1),
                         "sls: trace=x nodes=1 locus/capacity-default: jct_mean=nan "
                         "jct_p95=nan throughput=nan node_local=nan")

    def test_swim_runs_ask_reduces_anywhere_and_record_jobs_synthetic_ones_do_not(self):
        with tempfile.TemporaryDirectory() as d:
            sls.write_conf(d, "locus-default", 1000, "/t/rumen.json", (), (),
                           {"job_map": "/r/job-map.csv"})
            with open(os.path.join(d, "sls-runner.xml")) as f:
                swim = f.read()
            sls.write_conf(d, "locus-default", 1000, "/t/rumen.json")
            with open(os.path.join(d, "sls-runner.xml")) as f:
                synthetic = f.read()
        self.assertIn("<name>sls-bench.reduces.anywhere</name><value>true</value>", swim)
        self.assertIn("<name>sls-bench.job-map</name><value>/r/job-map.csv</value>", swim)
        self.assertNotIn("sls-bench.reduces.anywhere", synthetic)
        self.assertNotIn("sls-bench.job-map", synthetic)


if __name__ == "__main__":
    unittest.main()
