package org.locus.yarn;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core found that its asks of some applications differ from the RM's (their
 * {@code asks_digest} did not match): each gets one snapshot of its table, the binary by-name
 * asks frame every snapshot goes as ({@link CoreLink#sendSnapshot}). Only applications of the
 * batch that named them can drift, and the sender holds their locks, so the snapshots are read
 * and sent under the same locks, before any other change of their asks.
 */
final class AsksResync {
  private static final Logger LOG = LoggerFactory.getLogger(AsksResync.class);

  private AsksResync() {
  }

  /**
   * The attempts of {@code held} (whose locks the caller holds) owed a snapshot by
   * {@code driftedJson} (the core's JSON array of application ids, or null for none). An id
   * not among them (a core bug) is logged; its attempt re-sends a snapshot at its next update.
   */
  static List<LocusAppAttempt> drifted(String driftedJson, Collection<LocusAppAttempt> held) {
    if (driftedJson == null) {
      return Collections.emptyList();
    }
    Set<String> drifted = new HashSet<>();
    try {
      for (JsonNode app : CoreMessages.JSON.readTree(driftedJson)) {
        drifted.add(app.asText());
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("Locus core named drifted applications in malformed JSON ({}); re-sending the "
          + "asks of every application of the batch", driftedJson);
      drifted = null;
    }
    List<LocusAppAttempt> out = new ArrayList<>();
    for (LocusAppAttempt a : held) {
      if (drifted == null || drifted.remove(a.getApplicationId().toString())) {
        LOG.info("Asks of {} drifted from the Locus core's; sending them in full",
            a.getApplicationAttemptId());
        out.add(a);
      }
    }
    if (drifted != null && !drifted.isEmpty()) {
      LOG.warn("Locus core found drift in the asks of {}, not part of the batch sent", drifted);
    }
    return out;
  }
}
