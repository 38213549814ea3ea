package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.junit.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

public class FailureLogTest {
  private final Logger logger = LoggerFactory.getLogger("org.locus.yarn.FailureLogTest");
  private final AtomicLong now = new AtomicLong(1_000_000);
  private final FailureLog failures = new FailureLog(logger, 60_000, now::get);

  private static int lines(String out, String needle) {
    int n = 0;
    for (int i = out.indexOf(needle); i >= 0; i = out.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }

  @Test
  public void aRepeatedFailureIsOneLinePerIntervalAndSaysHowManyWereHeldBack() {
    LogCapturer logs = LogCapturer.captureLogs(logger);
    // At the RM's level, whatever an earlier test in this JVM left the loggers at (MockRM
    // turns the root logger to DEBUG).
    GenericTestUtils.setLogLevel(logger, Level.INFO);
    try {
      LocusException refused = new LocusException("asks over the limit of 10000 rows");
      String json = "{\"asks\":[" + "{\"priority\":1},".repeat(1000) + "]}";
      assertTrue(failures.warn("Locus core update", "application app_1", refused, json));
      for (int i = 0; i < 99; i++) {
        now.addAndGet(100);
        assertFalse(failures.warn("Locus core update", "application app_1", refused, json));
      }
      // Another application's failure is its own line.
      assertTrue(failures.warn("Locus core update", "application app_2", refused, json));
      now.addAndGet(60_000);
      assertTrue(failures.warn("Locus core update", "application app_1", refused, json));

      String out = logs.getOutput();
      assertEquals(out, 2, lines(out, "failed for application app_1: asks over the limit"));
      assertEquals(out, 1, lines(out, "failed for application app_2"));
      assertTrue(out, out.contains("(99 more like it in the last 60 s not logged)"));
      assertFalse("no message JSON above DEBUG: " + out, out.contains("\"priority\""));
    } finally {
      logs.stopCapturing();
    }
  }

  @Test
  public void longCoreMessagesAreCutToWhatNamesTheCulprit() {
    String message = "event 0 (asks_updated) rejected: application app_1: " + "x".repeat(5000);
    String cut = FailureLog.abbreviate(message);
    assertTrue(cut, cut.startsWith("event 0 (asks_updated) rejected: application app_1"));
    assertTrue(cut, cut.length() < 600);
  }
}
