package org.locus.it;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The demo's table: one batch under two schedulers, per job and in total. Kept apart from the cluster so the
 * arithmetic a reader trusts (makespan, mean turnaround, locality over the maps that read input) is tested alone.
 */
final class Comparison {
  /** One job under one scheduler, from the job's counters and the RM's clock. */
  static final class Row {
    final String job;
    /** False for a job whose maps read nothing (TeraGen): its maps count as off-switch in MapReduce's counters. */
    final boolean readsInput;
    final long maps;
    final long reduces;
    final long nodeLocal;
    final long rackLocal;
    final long offSwitch;
    final long submitMillis;
    final long finishMillis;
    /** "ok", or what went wrong. */
    final String result;

    Row(String job, boolean readsInput, long maps, long reduces, long nodeLocal, long rackLocal, long offSwitch,
        long submitMillis, long finishMillis, String result) {
      this.job = job;
      this.readsInput = readsInput;
      this.maps = maps;
      this.reduces = reduces;
      this.nodeLocal = nodeLocal;
      this.rackLocal = rackLocal;
      this.offSwitch = offSwitch;
      this.submitMillis = submitMillis;
      this.finishMillis = finishMillis;
      this.result = result;
    }

    static Row of(String job, boolean readsInput, JobOutcome o, String result) {
      return new Row(job, readsInput, o.maps, o.reduces, o.nodeLocalMaps, o.rackLocalMaps, o.offSwitchMaps,
          o.submitMillis, o.finishMillis, result);
    }

    /** A job that never reached the RM or whose outcome could not be read. */
    static Row failed(String job, boolean readsInput, String why) {
      return new Row(job, readsInput, 0, 0, 0, 0, 0, 0, 0, why);
    }

    boolean timed() {
      return submitMillis > 0 && finishMillis >= submitMillis;
    }

    double turnaroundSeconds() {
      return (finishMillis - submitMillis) / 1e3;
    }
  }

  /** The batch's figures under one scheduler. */
  static final class Totals {
    final int jobs;
    final int failed;
    final long maps;
    /** Maps that read input: the base of the locality shares. */
    final long inputMaps;
    final long nodeLocal;
    final long rackLocal;
    final long offSwitch;
    /** First submission to last finish, over the jobs the RM timed. */
    final double makespanSeconds;
    final double meanTurnaroundSeconds;

    private Totals(List<Row> rows) {
      int bad = 0;
      long m = 0, in = 0, node = 0, rack = 0, off = 0;
      long first = Long.MAX_VALUE, last = Long.MIN_VALUE;
      double sum = 0;
      int timed = 0;
      for (Row r : rows) {
        if (!"ok".equals(r.result)) {
          bad++;
        }
        m += r.maps;
        if (r.readsInput) {
          in += r.nodeLocal + r.rackLocal + r.offSwitch;
          node += r.nodeLocal;
          rack += r.rackLocal;
          off += r.offSwitch;
        }
        if (r.timed()) {
          first = Math.min(first, r.submitMillis);
          last = Math.max(last, r.finishMillis);
          sum += r.turnaroundSeconds();
          timed++;
        }
      }
      this.jobs = rows.size();
      this.failed = bad;
      this.maps = m;
      this.inputMaps = in;
      this.nodeLocal = node;
      this.rackLocal = rack;
      this.offSwitch = off;
      this.makespanSeconds = timed == 0 ? 0 : (last - first) / 1e3;
      this.meanTurnaroundSeconds = timed == 0 ? 0 : sum / timed;
    }

    double share(long part) {
      return inputMaps == 0 ? 0 : 100.0 * part / inputMaps;
    }
  }

  private Comparison() {}

  static Totals totals(List<Row> rows) {
    return new Totals(rows);
  }

  private static final String JOB_FMT = "%-13s %-9s|";
  private static final String SIDE_FMT = " %4s %4s %4s %4s %9s  %-8s|";

  /**
   * The table: a row per job with both schedulers side by side, then the totals and the second's ratio to the
   * first. {@code left} and {@code right} hold the same jobs in the same order.
   */
  static String table(String leftLabel, List<Row> left, String rightLabel, List<Row> right, List<String> sources) {
    if (left.size() != right.size() || sources.size() != left.size()) {
      throw new IllegalArgumentException("both runs must list the same jobs: " + left.size() + " vs "
          + right.size() + " rows, " + sources.size() + " sources");
    }
    StringBuilder out = new StringBuilder();
    String side = String.format(Locale.ROOT, SIDE_FMT, "", "", "", "", "", "");
    out.append(String.format(Locale.ROOT, JOB_FMT, "", ""))
        .append(center(leftLabel, side.length() - 1)).append('|')
        .append(center(rightLabel, side.length() - 1)).append("|\n");
    String head = String.format(Locale.ROOT, SIDE_FMT, "maps", "node", "rack", "off", "turnaround", "result");
    out.append(String.format(Locale.ROOT, JOB_FMT, "job", "from")).append(head).append(head).append('\n');
    for (int i = 0; i < left.size(); i++) {
      Row l = left.get(i);
      Row r = right.get(i);
      if (!l.job.equals(r.job)) {
        throw new IllegalArgumentException("row " + i + " is " + l.job + " on the left, " + r.job + " on the right");
      }
      out.append(String.format(Locale.ROOT, JOB_FMT, l.job, sources.get(i))).append(side(l)).append(side(r))
          .append('\n');
    }
    Totals a = totals(left);
    Totals b = totals(right);
    out.append('\n');
    out.append(String.format(Locale.ROOT, "%-38s %22s %22s %12s%n", "", leftLabel.split(" ")[0],
        rightLabel.split(" ")[0], "right/left"));
    out.append(line("makespan (first submit to last finish)", a.makespanSeconds, b.makespanSeconds, "s"));
    out.append(line("mean job turnaround", a.meanTurnaroundSeconds, b.meanTurnaroundSeconds, "s"));
    out.append(line("node-local maps (% of maps with input)", a.share(a.nodeLocal), b.share(b.nodeLocal), "%"));
    out.append(line("rack-local maps", a.share(a.rackLocal), b.share(b.rackLocal), "%"));
    out.append(line("off-switch maps", a.share(a.offSwitch), b.share(b.offSwitch), "%"));
    out.append(String.format(Locale.ROOT, "%-38s %22s %22s%n", "maps (with input) / jobs failed",
        a.maps + " (" + a.inputMaps + ") / " + a.failed, b.maps + " (" + b.inputMaps + ") / " + b.failed));
    return out.toString();
  }

  private static String side(Row r) {
    boolean loc = r.readsInput;
    return String.format(Locale.ROOT, SIDE_FMT, r.maps, loc ? r.nodeLocal : "-", loc ? r.rackLocal : "-",
        loc ? r.offSwitch : "-", r.timed() ? String.format(Locale.ROOT, "%.1f s", r.turnaroundSeconds()) : "-",
        r.result.length() > 8 ? r.result.substring(0, 8) : r.result);
  }

  private static String line(String what, double a, double b, String unit) {
    String ratio = a > 0 ? String.format(Locale.ROOT, "%.2f", b / a) : "-";
    return String.format(Locale.ROOT, "%-38s %20.1f %s %20.1f %s %12s%n", what, a, unit, b, unit, ratio);
  }

  private static String center(String text, int width) {
    if (text.length() >= width) {
      return text.substring(0, width);
    }
    int pad = (width - text.length()) / 2;
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < pad; i++) {
      s.append(' ');
    }
    s.append(text);
    while (s.length() < width) {
      s.append(' ');
    }
    return s.toString();
  }

  /** Jobs whose result is not "ok", for the verdict line. */
  static List<String> failures(String label, List<Row> rows) {
    List<String> out = new ArrayList<>();
    for (Row r : rows) {
      if (!"ok".equals(r.result)) {
        out.add(label + ": " + r.job + " " + r.result);
      }
    }
    return out;
  }
}
