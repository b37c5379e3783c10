package org.apache.spark.shuffle.sluice;

import java.io.IOException;

/**
 * A failure reported by Sluice's native code, with Sluice's message (which names the file,
 * partition and byte offset where it applies). An IOException, so Spark treats a corrupt fetched
 * block like any other corrupt shuffle stream.
 */
public class SluiceException extends IOException {
  public SluiceException(String message) {
    super(message);
  }
}
