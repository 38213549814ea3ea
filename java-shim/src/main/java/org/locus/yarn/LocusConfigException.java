package org.locus.yarn;

/**
 * A {@code locus.*} setting is unknown or has an invalid value. The message names the key and
 * what is allowed, so the ResourceManager fails to start (or {@code -refreshQueues} fails) with
 * an actionable error.
 */
public class LocusConfigException extends LocusException {
  private static final long serialVersionUID = 1L;

  /** Used by the native bridge ({@code ThrowNew}), so this constructor must stay. */
  public LocusConfigException(String message) {
    super(message);
  }
}
