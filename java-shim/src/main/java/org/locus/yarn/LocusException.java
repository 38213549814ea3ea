package org.locus.yarn;

import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;

/**
 * Anything the Locus core or its JNI bridge refused: malformed messages, unknown nodes or
 * applications, a closed handle, or a panic inside the core. The message is the core's own
 * description and names the culprit.
 */
public class LocusException extends YarnRuntimeException {
  private static final long serialVersionUID = 1L;

  /** Used by the native bridge ({@code ThrowNew}), so this constructor must stay. */
  public LocusException(String message) {
    super(message);
  }

  public LocusException(String message, Throwable cause) {
    super(message, cause);
  }
}
