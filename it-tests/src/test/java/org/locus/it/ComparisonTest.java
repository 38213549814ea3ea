package org.locus.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;

import org.junit.Test;

/** The demo table's totals, from hand-made rows (no cluster). */
public class ComparisonTest {
  private static Comparison.Row row(String job, boolean readsInput, long node, long rack, long off, long submit,
      long finish) {
    return new Comparison.Row(job, readsInput, node + rack + off, 1, node, rack, off, submit, finish, "ok");
  }

  @Test
  public void makespanRunsFromTheFirstSubmitToTheLastFinishAndTheMeanIsPerJob() {
    List<Comparison.Row> rows = List.of(
        row("a", true, 2, 0, 0, 10_000, 40_000),   // 30 s
        row("b", true, 1, 1, 0, 12_000, 62_000),   // 50 s, last to finish
        row("c", true, 0, 0, 1, 15_000, 25_000));  // 10 s
    Comparison.Totals t = Comparison.totals(rows);
    assertEquals(52.0, t.makespanSeconds, 1e-9);
    assertEquals(30.0, t.meanTurnaroundSeconds, 1e-9);
  }

  @Test
  public void mapsThatReadNoInputStayOutOfTheLocalityShares() {
    // TeraGen's maps read nothing; MapReduce counts them as OTHER_LOCAL_MAPS.
    List<Comparison.Row> rows = List.of(
        row("sort", true, 3, 1, 0, 1_000, 2_000),
        row("gen", false, 0, 0, 2, 1_000, 2_000));
    Comparison.Totals t = Comparison.totals(rows);
    assertEquals(6, t.maps);
    assertEquals(4, t.inputMaps);
    assertEquals(75.0, t.share(t.nodeLocal), 1e-9);
    assertEquals(0.0, t.share(t.offSwitch), 1e-9);
  }

  @Test
  public void aJobTheRmNeverTimedCountsAsFailedAndOutOfTheTimes() {
    List<Comparison.Row> rows = List.of(
        row("a", true, 1, 0, 0, 1_000, 11_000),
        Comparison.Row.failed("b", true, "NOT SUBMITTED"));
    Comparison.Totals t = Comparison.totals(rows);
    assertEquals(1, t.failed);
    assertEquals(10.0, t.makespanSeconds, 1e-9);
    assertEquals(10.0, t.meanTurnaroundSeconds, 1e-9);
  }

  @Test
  public void theTableShowsBothSchedulersPerJobAndTheirRatio() {
    List<Comparison.Row> cs = List.of(row("wc", true, 1, 1, 0, 1, 20_001), row("gen", false, 0, 0, 2, 1, 10_001));
    List<Comparison.Row> locus = List.of(row("wc", true, 2, 0, 0, 1, 10_001), row("gen", false, 0, 0, 2, 1, 5_001));
    String table = Comparison.table("CS defaults", cs, "Locus default", locus, List.of("p", "x"));
    assertTrue(table, table.contains("CS defaults") && table.contains("Locus default"));
    // wc: CS 1 node-local, 1 rack-local, 20.0 s; Locus 2 node-local, 10.0 s.
    assertTrue(table, table.matches("(?s).*\\bwc .*\\b1 +1 +0 +20\\.0 s +ok .*\\b2 +0 +0 +10\\.0 s +ok.*"));
    // gen reads nothing: no locality figures for it.
    assertTrue(table, table.matches("(?s).*\\bgen .*- +- +- +10\\.0 s.*"));
    // makespan 20 s vs 10 s: ratio 0.50; node-local 50 % vs 100 %.
    assertTrue(table, table.matches("(?s).*makespan[^\\n]* 20\\.0 s +10\\.0 s +0\\.50\\n.*"));
    assertTrue(table, table.matches("(?s).*node-local maps[^\\n]* 50\\.0 % +100\\.0 % +2\\.00\\n.*"));
  }
}
