package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/**
 * The transitions of {@link AskSync} on their own, without an RM: when the core is sent the
 * whole table, the AM's changes or nothing, and when the put-back count lets a frame read the
 * AM's noted rows. The RM-backed tests (NotedRowsTest, AsksAcrossRebuildTest, AskRowLimitTest,
 * DriftSnapshotTest) drive the same machine through a real attempt.
 */
public class AskSyncTest {
  private static final AskSync.Next NOTHING = AskSync.Next.NOTHING;
  private static final AskSync.Next CHANGES = AskSync.Next.CHANGES;
  private static final AskSync.Next SNAPSHOT = AskSync.Next.SNAPSHOT;

  private static AskSync inStep() {
    AskSync s = new AskSync();
    s.snapshotTaken();
    return s;
  }

  @Test
  public void aNewAttemptOwesTheCoreItsWholeTable() {
    AskSync s = new AskSync();
    assertEquals(AskSync.CoreView.SNAPSHOT_OWED, s.view());
    assertEquals(SNAPSHOT, s.next(false));
    assertEquals(SNAPSHOT, s.next(true));
    assertTrue("a digest would not do", s.snapshotDue(false));
  }

  @Test
  public void inStepOnlyTheAmsChangesGo() {
    AskSync s = inStep();
    assertEquals(AskSync.CoreView.IN_STEP, s.view());
    assertEquals(NOTHING, s.next(false));
    assertEquals(CHANGES, s.next(true));
    assertFalse(s.snapshotDue(true));
  }

  @Test
  public void aFailedUpdateOwesTheTableUntilOneIsTaken() {
    AskSync s = inStep();
    s.forgetSent();
    assertEquals(AskSync.CoreView.SNAPSHOT_OWED, s.view());
    assertEquals("changes cannot apply to a table the core may not hold", SNAPSHOT,
        s.next(true));
    assertEquals(SNAPSHOT, s.next(false));
    s.snapshotTaken();
    assertEquals(CHANGES, s.next(true));
  }

  @Test
  public void aRefusedTableWaitsForTheAmsNextChange() {
    AskSync s = inStep();
    s.refusedHere("over the row limit");
    assertEquals(AskSync.CoreView.SNAPSHOT_OWED, s.view());
    assertEquals("over the row limit", s.refusal());
    assertEquals("the same table would be refused again", NOTHING, s.next(false));
    assertFalse(s.snapshotDue(false));
    assertEquals("the AM changed something: the whole table goes", SNAPSHOT, s.next(true));
    s.snapshotTaken();
    assertEquals("shown until the core accepts a message", "over the row limit", s.refusal());
    s.accepted();
    assertNull(s.refusal());
  }

  @Test
  public void theCoresRefusalAloneLeavesTheViewToTheCaller() {
    AskSync s = inStep();
    s.refused("too many names");
    assertEquals(AskSync.CoreView.IN_STEP, s.view());
    s.forgetSent();
    assertEquals(NOTHING, s.next(false));
    assertEquals(SNAPSHOT, s.next(true));
  }

  @Test
  public void aDroppedMessageOwesTheTableEvenAfterARefusal() {
    AskSync s = inStep();
    s.refusedHere("over the row limit");
    s.dropped();
    assertEquals(AskSync.CoreView.DROPPED, s.view());
    assertEquals("the dropped message may have carried a change", SNAPSHOT, s.next(false));
    assertTrue(s.snapshotDue(false));
    s.forgetSent();
    assertEquals("a failed update does not clear the drop", AskSync.CoreView.DROPPED, s.view());
    s.accepted();
    assertEquals("a drop is no verdict", "over the row limit", s.refusal());
    s.snapshotTaken();
    assertEquals(AskSync.CoreView.IN_STEP, s.view());
    s.accepted();
    assertNull(s.refusal());
  }

  @Test
  public void withNoPutBackTheNotedRowsAreTheRms() {
    AskSync s = inStep();
    s.amChangeApplying(true);
    long at = s.frameStarts();
    assertTrue(s.notedRowsHeld(at));
    assertFalse(s.putBackSince(at));
  }

  @Test
  public void aPutBackDoneBeforeTheAmsChangeLeavesItsRowsAlone() {
    AskSync s = inStep();
    s.putBackStarting();
    s.putBackDone();
    s.amChangeApplying(true);
    assertTrue(s.notedRowsHeld(s.frameStarts()));
  }

  /** The put-back counted itself, then waited for the write lock while the AM's rows landed. */
  @Test
  public void aPutBackUnderWayAsTheAmsChangeIsAppliedIsSeen() {
    AskSync s = inStep();
    s.putBackStarting();
    s.amChangeApplying(true);
    s.putBackDone();
    assertFalse(s.notedRowsHeld(s.frameStarts()));
  }

  @Test
  public void aPutBackStillUnderWayAtTheFrameIsSeen() {
    AskSync s = inStep();
    s.amChangeApplying(true);
    s.putBackStarting();
    assertFalse("odd: under way", s.notedRowsHeld(s.frameStarts()));
  }

  @Test
  public void aPutBackBetweenTwoOfTheAmsChangesIsSeen() {
    AskSync s = inStep();
    s.amChangeApplying(true);
    s.putBackStarting();
    s.putBackDone();
    // The second change does not restart the count: the first change's rows may be replaced.
    s.amChangeApplying(false);
    assertFalse(s.notedRowsHeld(s.frameStarts()));
  }

  @Test
  public void aPutBackStartingWhileTheFrameIsWrittenMakesItWrittenAgain() {
    AskSync s = inStep();
    s.amChangeApplying(true);
    long at = s.frameStarts();
    assertTrue(s.notedRowsHeld(at));
    s.putBackStarting();
    assertTrue(s.putBackSince(at));
    s.putBackDone();
    assertTrue(s.putBackSince(at));
  }

  @Test
  public void theNextSendStartsTheCountAfresh() {
    AskSync s = inStep();
    s.amChangeApplying(true);
    s.putBackStarting();
    s.putBackDone();
    assertFalse(s.notedRowsHeld(s.frameStarts()));
    s.amChangeApplying(true);
    assertTrue(s.notedRowsHeld(s.frameStarts()));
  }
}
