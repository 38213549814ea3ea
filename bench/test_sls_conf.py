#!/usr/bin/env python3
"""bench/sls.py's run configuration: `--log LOGGER=LEVEL` reaches the run's log4j.properties and
nothing else changes. Pure Python, under a second: python3 -m unittest bench/test_sls_conf.py
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sls  # noqa: E402


class LogLevels(unittest.TestCase):
    def log4j(self, logs):
        with tempfile.TemporaryDirectory() as d:
            sls.write_conf(d, "locus-default", 1000, "/trace/rumen.json", (), logs)
            with open(os.path.join(d, "log4j.properties")) as f:
                return f.read().splitlines()

    def test_a_logger_named_gets_its_level(self):
        lines = self.log4j(["org.locus.yarn=INFO",
                            "org.apache.hadoop.yarn.sls.nodemanager.NMSimulator=DEBUG"])
        self.assertIn("log4j.logger.org.locus.yarn=INFO", lines)
        self.assertIn("log4j.logger.org.apache.hadoop.yarn.sls.nodemanager.NMSimulator=DEBUG",
                      lines)
        self.assertIn("log4j.rootLogger=WARN, stdout", lines)

    def test_without_log_the_configuration_is_the_default(self):
        lines = self.log4j([])
        self.assertEqual([l for l in lines if l.startswith("log4j.logger.")],
                         ["log4j.logger.org.apache.hadoop.yarn.sls.SLSRunner=INFO"])


class SizeBased(unittest.TestCase):
    """The size-based configuration turns the monitor on with Hadoop's policy named, which is what
    the shim requires before it accepts locus.preemption.size-based=true; the default does not."""

    def site(self, config):
        import xml.etree.ElementTree as ET
        with tempfile.TemporaryDirectory() as d:
            sls.write_conf(d, config, 1000, "/trace/rumen.json")
            root = ET.parse(os.path.join(d, "yarn-site.xml")).getroot()
            return {p.find("name").text: p.find("value").text for p in root.iter("property")}

    def test_size_based_runs_the_monitor_with_the_policy(self):
        site = self.site("locus-size-based")
        self.assertEqual(site["locus.preemption.size-based"], "true")
        self.assertEqual(site["yarn.resourcemanager.scheduler.monitor.enable"], "true")
        self.assertTrue(site["yarn.resourcemanager.scheduler.monitor.policies"]
                        .endswith(".ProportionalCapacityPreemptionPolicy"))

    def test_the_default_runs_no_monitor(self):
        site = self.site("locus-default")
        self.assertNotIn("locus.preemption.size-based", site)
        self.assertNotIn("yarn.resourcemanager.scheduler.monitor.enable", site)

    def test_size_based_is_not_in_the_default_list(self):
        self.assertIn("locus-size-based", sls.CONFIGS)
        self.assertNotIn("locus-size-based", sls.DEFAULT_CONFIGS)


if __name__ == "__main__":
    unittest.main()
