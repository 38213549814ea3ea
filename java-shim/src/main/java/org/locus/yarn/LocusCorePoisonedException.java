package org.locus.yarn;

/**
 * The core panicked during this call or an earlier one and may be half-updated, so the bridge
 * refuses every further call on it. The only way on is a new core, which {@link LocusScheduler}
 * builds from the ResourceManager's own bookkeeping.
 */
public class LocusCorePoisonedException extends LocusException {
  private static final long serialVersionUID = 1L;

  /** Used by the native bridge ({@code ThrowNew}), so this constructor must stay. */
  public LocusCorePoisonedException(String message) {
    super(message);
  }
}
