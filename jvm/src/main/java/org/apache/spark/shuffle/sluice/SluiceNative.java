package org.apache.spark.shuffle.sluice;

/**
 * The native entry points of libsluice_jni.so (jvm/src/main/cpp). Handles are addresses of
 * native objects; each is closed exactly once by its owner. Every failure is thrown as a
 * {@link SluiceException} carrying Sluice's message.
 *
 * <p>Call {@link NativeLibrary#load()} before any of these.
 */
final class SluiceNative {
  private SluiceNative() {}

  // The slots of the long[] results, named once here: the build runs `javac -h` on this class,
  // which writes these constants (and every native method's C signature) into the header that
  // the native side includes (native_slots.h), so the two sides cannot drift apart.

  /** writerNewPage's pageOut. */
  static final int PAGE_NUMBER = 0;
  static final int PAGE_ADDRESS = 1;
  static final int PAGE_CAPACITY = 2;
  static final int PAGE_SLOTS = 3;

  /** writerFinish's metrics. */
  static final int WRITE_OUTPUT_BYTES = 0;
  static final int WRITE_SPILLS = 1;
  static final int WRITE_SPILL_BYTES = 2;
  static final int WRITE_BLOCKS = 3;
  static final int WRITE_ROWS = 4;
  static final int WRITE_WRITE_NANOS = 5;
  static final int WRITE_TOTAL_NANOS = 6;
  static final int WRITE_METRIC_SLOTS = 7;

  /** readerNextRows's out: where the decoded rows are. */
  static final int ROWS_BASE = 0;
  static final int ROWS_OFFSETS = 1;
  static final int ROWS_SIZES = 2;
  static final int ROWS_HELD_BYTES = 3;
  static final int ROWS_SLOTS = 4;

  /** readerNextBatch's out: where the decoded batch is. */
  static final int BATCH_ARRAY = 0;
  static final int BATCH_HELD_BYTES = 1;
  static final int BATCH_SLOTS = 2;

  // readerNextRows's and readerNextBatch's results other than a row count.
  static final int READER_NEEDS_BLOCK = 0;
  static final int READER_END = -1;

  /** readerMetrics's metrics. */
  static final int READ_SEGMENTS = 0;
  static final int READ_BLOCKS = 1;
  static final int READ_ROWS = 2;
  static final int READ_DECOMPRESSED_BYTES = 3;
  static final int READ_DECOMPRESS_NANOS = 4;
  static final int READ_METRIC_SLOTS = 5;

  /** injectFault's faults (a test seam: see SluiceFaults). */
  static final int FAULT_NONE = 0;
  static final int FAULT_ALLOCATION = 1;
  static final int FAULT_DISK_FULL = 2;

  /**
   * Makes every later native allocation fail (FAULT_ALLOCATION) or every later file write fail
   * with ENOSPC (FAULT_DISK_FULL) in this executor process, or turns both off (FAULT_NONE).
   */
  static native void injectFault(int fault);

  /** Returns the library's name and version. */
  static native String version();

  /** Returns the schema if Sluice can carry every type of it; throws otherwise. */
  static native String checkSchema(String sparkCatalogString);

  // Map side (row_writer_jni.cc).

  static native long writerCreate(
      String sparkCatalogString, int partitionCount, String[] keys, String[] values,
      String dataPath);

  /** Returns the size of the page writerNewPage would make for a row of minBytes. */
  static native long writerNextPageBytes(long writer, long minBytes);

  /** Fills pageOut (PAGE_* slots); returns the bytes held after. */
  static native long writerNewPage(long writer, long minBytes, long[] pageOut);

  /** Records count packed pointers; returns the bytes held after. */
  static native long writerAddPointers(long writer, long[] pointers, int count);

  /** Spills every row held; returns the bytes released. */
  static native long writerSpill(long writer);

  static native long writerHeldBytes(long writer);

  /** Writes and commits the data file; fills lengths, checksums and metrics (WRITE_* slots). */
  static native void writerFinish(long writer, long[] lengths, long[] checksums, long[] metrics);

  static native void writerClose(long writer);

  // Map side of the columnar path (batch_writer_jni.cc).

  /**
   * A writer of Spark column batches; keys and values set partitioning, codec and the rest.
   * rangeBounds (range partitioning only, empty otherwise): Spark's bounds as UnsafeRows of the
   * key columns, packed as [count, each row's size in bytes, the rows' 8-byte words].
   */
  static native long batchWriterCreate(
      String sparkCatalogString, String[] keys, String[] values, String dataPath,
      long[] rangeBounds);

  /**
   * Allocates the next batch's Arrow buffers, bufferBytes[i] bytes each in the C Data
   * Interface's order (0 for an absent buffer), and fills their addresses; returns the bytes
   * held after.
   */
  static native long batchWriterReserve(long writer, long[] bufferBytes, long[] addresses);

  /**
   * Writes the batch of `rows` rows the JVM copied into the reserved buffers; nodes holds each
   * array's length and null count, in pre-order. partitionIds (given partitioning, null
   * otherwise): each row's partition, computed by Spark. Returns the bytes held after.
   */
  static native long batchWriterWrite(long writer, int rows, long[] nodes, int[] partitionIds);

  /** Spills every batch held; returns the bytes held after. */
  static native long batchWriterSpill(long writer);

  static native long batchWriterHeldBytes(long writer);

  /** As writerFinish. */
  static native void batchWriterFinish(
      long writer, long[] lengths, long[] checksums, long[] metrics);

  static native void batchWriterClose(long writer);

  // Reduce side (reduce_reader_jni.cc).

  /** A reader whose output is UnsafeRows (readerNextRows) or Arrow batches (readerNextBatch). */
  static native long readerCreate(String sparkCatalogString, boolean batches);

  /**
   * Grows the buffer of the block being copied in to at least `capacity` bytes, keeping its
   * first `kept` bytes (the part of the block copied so far), and returns its address: the JVM
   * copies a fetched block there.
   */
  static native long readerReserveBlock(long reader, long kept, long capacity);

  /** Hands the first `length` bytes of the block buffer to the reader (named `name` in errors). */
  static native void readerPushBlock(long reader, long length, String name);

  /** Tells the reader that every block has been pushed. */
  static native void readerEndBlocks(long reader);

  /**
   * Converts the next batch into rows; returns the row count and fills out (ROWS_* slots: the
   * rows' base address, their int64 offsets, their int32 sizes, and the native memory the
   * reader holds), READER_NEEDS_BLOCK when the next batch needs a block not pushed yet, or
   * READER_END after the last row.
   */
  static native int readerNextRows(long reader, long[] out);

  /**
   * Decodes the next batch; returns its row count and fills out (BATCH_* slots: the address of
   * an Arrow C Data ArrowArray, a struct array of the columns, valid until the next call, and
   * the native memory the reader holds), or READER_NEEDS_BLOCK / READER_END as readerNextRows.
   */
  static native int readerNextBatch(long reader, long[] out);

  /** Fills metrics (READ_* slots). */
  static native void readerMetrics(long reader, long[] metrics);

  static native void readerClose(long reader);
}
