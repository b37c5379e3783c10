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

  /** Fills pageOut = {number, address, capacity}; returns the bytes held after. */
  static native long writerNewPage(long writer, long minBytes, long[] pageOut);

  /** Records count packed pointers; returns the bytes held after. */
  static native long writerAddPointers(long writer, long[] pointers, int count);

  /** Spills every row held; returns the bytes released. */
  static native long writerSpill(long writer);

  static native long writerHeldBytes(long writer);

  /**
   * Writes and commits the data file; fills lengths, checksums and metrics = {output bytes,
   * spills, spill bytes, blocks, rows, write nanos, total nanos}.
   */
  static native void writerFinish(long writer, long[] lengths, long[] checksums, long[] metrics);

  static native void writerClose(long writer);

  // Reduce side (row_reader_jni.cc).

  static native long readerCreate(String sparkCatalogString);

  /**
   * Grows the reader's block buffer to at least `capacity` bytes, keeping its first `kept` bytes
   * (the part of the block copied so far), and returns its address: the JVM copies a fetched
   * block there.
   */
  static native long readerReserveBlock(long reader, long kept, long capacity);

  /** Starts decoding the first `length` bytes of the block buffer (named `name` in errors). */
  static native void readerBeginBlock(long reader, long length, String name);

  /**
   * Decodes the next batch of the block into rows; returns the row count (0 at its end) and
   * fills out = {rows base address, int64 offsets address, int32 sizes address}.
   */
  static native int readerNextRows(long reader, long[] out);

  /** Fills metrics = {segments, blocks, rows, decompressed bytes, decompress nanos}. */
  static native void readerMetrics(long reader, long[] metrics);

  static native void readerClose(long reader);
}
