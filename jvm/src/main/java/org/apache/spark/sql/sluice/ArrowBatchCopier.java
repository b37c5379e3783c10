package org.apache.spark.sql.sluice;

import java.math.BigInteger;
import java.util.Arrays;

import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.CalendarIntervalType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DayTimeIntervalType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimeType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.YearMonthIntervalType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.CalendarInterval;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Copies a Spark ColumnarBatch into Arrow buffers in native memory, once: the one copy of the
 * columnar path's map side.
 *
 * A batch is copied in two passes. {@link #measure} sizes every buffer (the bytes of the strings
 * and binaries are counted, the rest follows from the row count) in the order of the Arrow C Data
 * Interface, column by column; the native writer allocates them all at once; {@link #fill} writes
 * the values, the validity bitmaps (only for columns with nulls) and the offsets, and records each
 * column's length and null count. The layouts are Sluice's Arrow types for Spark types
 * (sluice/row/spark_type.h), the ones {@link ArrowColumnView} reads back.
 *
 * A struct column is copied as its validity and its fields' arrays, read from the vector's
 * children (ColumnVector.getChild). Arrays and maps (of the element types arrayElementWidth
 * names) are copied as their offsets and their elements, viewed as one column (ElementsVector)
 * and copied by the element type's copier, nested ones included. Arrays of other element types
 * are not carried yet (the planner keeps them on the row path).
 *
 * Values are read through ColumnVector's getters, so any vector works (Parquet's and ORC's
 * on-heap and off-heap vectors, the columnar cache, constant partition columns, Arrow-backed
 * vectors); strings of Spark's writable vectors are copied from their storage without a
 * UTF8String per value.
 *
 * It also adds up what the batch's rows take as UnsafeRows, which Spark's row serializer would
 * report as the exchange's data size (adaptive execution plans joins by it).
 */
public final class ArrowBatchCopier {
  private final ColumnCopier[] columns;
  private final long[] bufferBytes;
  private final long[] addresses;
  private final long[] nodes;
  private final int bufferCount;
  private final long fixedRowBytes;

  public ArrowBatchCopier(DataType[] types) {
    columns = new ColumnCopier[types.length];
    int buffers = 0;
    for (int i = 0; i < types.length; i++) {
      columns[i] = ColumnCopier.of(types[i]);
      buffers += columns[i].bufferCount();
    }
    int nodeCount = 0;
    for (ColumnCopier column : columns) nodeCount += column.nodeCount();
    bufferCount = buffers;
    bufferBytes = new long[buffers];
    addresses = new long[buffers];
    nodes = new long[2 * nodeCount];
    // An UnsafeRow: a null bitmap of 8-byte words, then 8 bytes per field.
    fixedRowBytes = 8L * ((types.length + 63) / 64) + 8L * types.length;
  }

  /**
   * Sizes the buffers of `batch` (bufferBytes()); returns the bytes its rows take as UnsafeRows.
   */
  public long measure(ColumnarBatch batch) {
    final int rows = batch.numRows();
    long rowBytes = fixedRowBytes * rows;
    int at = 0;
    for (int i = 0; i < columns.length; i++) {
      rowBytes += columns[i].measure(batch.column(i), rows, bufferBytes, at);
      at += columns[i].bufferCount();
    }
    return rowBytes;
  }

  /** The sizes measure() found, one per buffer. */
  public long[] bufferBytes() {
    return bufferBytes;
  }

  /** Where fill() writes: the addresses of the buffers, filled by the native writer. */
  public long[] addresses() {
    return addresses;
  }

  /**
   * Copies `batch` into the buffers at addresses(); returns the (length, nulls) of every array,
   * in pre-order (a struct column, then its fields').
   */
  public long[] fill(ColumnarBatch batch) {
    final int rows = batch.numRows();
    int at = 0;
    int node = 0;
    for (int i = 0; i < columns.length; i++) {
      nodes[2 * node] = rows;
      nodes[2 * node + 1] = columns[i].fill(batch.column(i), rows, addresses, bufferBytes, at);
      columns[i].copyDescendantNodes(nodes, 2 * node + 2);
      at += columns[i].bufferCount();
      node += columns[i].nodeCount();
    }
    return nodes;
  }

  /**
   * The bytes an element of `type` takes in the fixed part of Spark's UnsafeArrayData (its
   * natural width; 8 for a decimal of up to 18 digits, and for the offset and size of a value
   * whose bytes follow: a string or binary padded to 8, an interval, a struct as a nested
   * UnsafeRow, an array or a map; a decimal of more than 18 digits, kept in its minimal bytes),
   * or -1 for the element types the columnar path does not carry in arrays yet (the null type).
   */
  public static int arrayElementWidth(DataType type) {
    if (type instanceof BooleanType || type instanceof ByteType) return 1;
    if (type instanceof ShortType) return 2;
    if (type instanceof IntegerType || type instanceof DateType || type instanceof FloatType
        || type instanceof YearMonthIntervalType) {
      return 4;
    }
    if (type instanceof LongType || type instanceof DoubleType || type instanceof TimestampType
        || type instanceof TimestampNTZType || type instanceof DayTimeIntervalType
        || type instanceof TimeType || type instanceof StringType || type instanceof BinaryType
        || type instanceof CalendarIntervalType) {
      return 8;
    }
    if (type instanceof DecimalType) return 8;
    if (type instanceof StructType || type instanceof ArrayType || type instanceof MapType) {
      return ArrowColumnView.supports(type) ? 8 : -1;
    }
    return -1;
  }

  /** The bytes of an UnsafeArrayData of `length` elements of `width` bytes, values apart. */
  static long arrayFixedBytes(int length, int width) {
    return 8L + 8L * ((length + 63) / 64) + ((long) width * length + 7) / 8 * 8;
  }

  /** One column's copy. measure() and fill() take the buffer slots from `at` on. */
  private abstract static class ColumnCopier {
    /** Buffers of the column in the C Data Interface (the validity bitmap included). */
    abstract int bufferCount();

    private static final long[] NO_NODES = new long[0];

    /**
     * The (length, nulls) of the arrays below this one (a nested type's children), in pre-order,
     * as the last fill() found them; sized by the nested copiers' constructors.
     */
    long[] descendantNodes = NO_NODES;

    /** Arrays of the column: its own and those below it. */
    final int nodeCount() {
      return 1 + descendantNodes.length / 2;
    }

    /** Writes descendantNodes to `nodes` from `at` on. */
    final void copyDescendantNodes(long[] nodes, int at) {
      System.arraycopy(descendantNodes, 0, nodes, at, descendantNodes.length);
    }

    /**
     * Fills child copier `child` with `rows` values of `vector` from buffer slot `at`, and records
     * its arrays in descendantNodes from node `node` on; returns the node after them.
     */
    final int fillChild(ColumnCopier child, ColumnVector vector, int rows, long[] addresses,
        long[] reserved, int at, int node) {
      descendantNodes[2 * node] = rows;
      descendantNodes[2 * node + 1] = child.fill(vector, rows, addresses, reserved, at);
      child.copyDescendantNodes(descendantNodes, 2 * node + 2);
      return node + child.nodeCount();
    }

    /**
     * The bytes value `i` takes in an UnsafeRow beyond its 8-byte slot: what measure() adds up,
     * for one value (a struct's measure() takes out the values under its null rows).
     */
    long rowVarBytes(ColumnVector vector, int i) {
      return 0;
    }

    /**
     * Like measure(), but returns what the values take as the elements of UnsafeArrayData beyond
     * their 8-byte slots, which differs from a row's for wide decimals.
     */
    long measureInArray(ColumnVector vector, int rows, long[] sizes, int at) {
      return measure(vector, rows, sizes, at);
    }

    /** Like rowVarBytes(), for value `i` as an element of an UnsafeArrayData. */
    long arrayElementVarBytes(ColumnVector vector, int i) {
      return rowVarBytes(vector, i);
    }

    /** Sizes the buffers; returns the bytes the values take in UnsafeRows beyond 8 per field. */
    abstract long measure(ColumnVector vector, int rows, long[] sizes, int at);

    /**
     * Copies the values into the buffers at `addresses` (`reserved` bytes each); returns the null
     * count.
     */
    abstract int fill(ColumnVector vector, int rows, long[] addresses, long[] reserved, int at);

    static ColumnCopier of(DataType type) {
      if (type instanceof NullType) return new NullCopier();
      if (type instanceof BooleanType) return new BooleanCopier();
      if (type instanceof ByteType) return new FixedCopier(1);
      if (type instanceof ShortType) return new FixedCopier(2);
      if (type instanceof IntegerType || type instanceof DateType
          || type instanceof YearMonthIntervalType) {
        return new FixedCopier(4);
      }
      if (type instanceof FloatType) return new FloatCopier();
      if (type instanceof LongType || type instanceof TimestampType
          || type instanceof TimestampNTZType || type instanceof DayTimeIntervalType
          || type instanceof TimeType) {
        return new FixedCopier(8);
      }
      if (type instanceof DoubleType) return new DoubleCopier();
      if (type instanceof DecimalType) return new DecimalCopier((DecimalType) type);
      if (type instanceof StringType || type instanceof BinaryType) return new BytesCopier();
      if (type instanceof CalendarIntervalType) return new IntervalCopier();
      if (type instanceof StructType) return new StructCopier((StructType) type);
      if (type instanceof ArrayType && arrayElementWidth(((ArrayType) type).elementType()) > 0) {
        return new ListCopier((ArrayType) type);
      }
      if (type instanceof MapType && arrayElementWidth(((MapType) type).keyType()) > 0
          && arrayElementWidth(((MapType) type).valueType()) > 0) {
        return new MapCopier((MapType) type);
      }
      throw new UnsupportedOperationException(
          "the columnar path does not carry " + type.catalogString() + " yet");
    }

    /** Sizes the validity bitmap: none without nulls. */
    static long validityBytes(ColumnVector vector, int rows) {
      return vector.hasNull() ? (rows + 7) / 8 : 0;
    }

    /** Writes the validity bitmap when the column has one; returns the null count. */
    static int fillValidity(ColumnVector vector, int rows, long address) {
      if (address == 0L) return 0;
      int nulls = 0;
      for (int start = 0; start < rows; start += 8) {
        int bits = 0;
        final int end = Math.min(rows, start + 8);
        for (int i = start; i < end; i++) {
          if (vector.isNullAt(i)) nulls++;
          else bits |= 1 << (i - start);
        }
        Platform.putByte(null, address + (start >> 3), (byte) bits);
      }
      return nulls;
    }
  }

  private static final class NullCopier extends ColumnCopier {
    @Override int bufferCount() { return 0; }

    @Override long measure(ColumnVector vector, int rows, long[] sizes, int at) { return 0; }

    @Override
    int fill(ColumnVector vector, int rows, long[] addresses, long[] reserved, int at) {
      return rows;
    }
  }

  private static final class BooleanCopier extends ColumnCopier {
    @Override int bufferCount() { return 2; }

    @Override
    long measure(ColumnVector vector, int rows, long[] sizes, int at) {
      sizes[at] = validityBytes(vector, rows);
      sizes[at + 1] = (rows + 7) / 8;
      return 0;
    }

    @Override
    int fill(ColumnVector vector, int rows, long[] addresses, long[] reserved, int at) {
      final long bitsAddress = addresses[at + 1];
      for (int start = 0; start < rows; start += 8) {
        int bits = 0;
        final int end = Math.min(rows, start + 8);
        for (int i = start; i < end; i++) {
          if (!vector.isNullAt(i) && vector.getBoolean(i)) bits |= 1 << (i - start);
        }
        Platform.putByte(null, bitsAddress + (start >> 3), (byte) bits);
      }
      return fillValidity(vector, rows, addresses[at]);
    }
  }

  /** Integers of 1, 2, 4 or 8 bytes (dates, timestamps, intervals and times among them). */
  private static final class FixedCopier extends ColumnCopier {
    private final int width;

    FixedCopier(int width) { this.width = width; }

    @Override int bufferCount() { return 2; }

    @Override
    long measure(ColumnVector vector, int rows, long[] sizes, int at) {
      sizes[at] = validityBytes(vector, rows);
      sizes[at + 1] = (long) width * rows;
      return 0;
    }

    @Override
    int fill(ColumnVector vector, int rows, long[] addresses, long[] reserved, int at) {
      final long out = addresses[at + 1];
      switch (width) {
        case 1:
          for (int i = 0; i < rows; i++) Platform.putByte(null, out + i, vector.getByte(i));
          break;
        case 2:
          for (int i = 0; i < rows; i++) Platform.putShort(null, out + 2L * i, vector.getShort(i));
          break;
        case 4:
          for (int i = 0; i < rows; i++) Platform.putInt(null, out + 4L * i, vector.getInt(i));
          break;
        default:
          for (int i = 0; i < rows; i++) Platform.putLong(null, out + 8L * i, vector.getLong(i));
          break;
      }
      return fillValidity(vector, rows, addresses[at]);
    }
  }

  private static final class FloatCopier extends ColumnCopier {
    @Override int bufferCount() { return 2; }

    @Override
    long measure(ColumnVector vector, int rows, long[] sizes, int at) {
      sizes[at] = validityBytes(vector, rows);
      sizes[at + 1] = 4L * rows;
      return 0;
    }

    @Override
    int fill(ColumnVector vector, int rows, long[] addresses, long[] reserved, int at) {
      final long out = addresses[at + 1];
      for (int i = 0; i < rows; i++) Platform.putFloat(null, out + 4L * i, vector.getFloat(i));
      return fillValidity(vector, rows, addresses[at]);
    }
  }

  private static final class DoubleCopier extends ColumnCopier {
    @Override int bufferCount() { return 2; }

    @Override
    long measure(ColumnVector vector, int rows, long[] sizes, int at) {
      sizes[at] = validityBytes(vector, rows);
      sizes[at + 1] = 8L * rows;
      return 0;
    }

    @Override
    int fill(ColumnVector vector, int rows, long[] addresses, long[] reserved, int at) {
      final long out = addresses[at + 1];
      for (int i = 0; i < rows; i++) Platform.putDouble(null, out + 8L * i, vector.getDouble(i));
      return fillValidity(vector, rows, addresses[at]);
    }
  }

  /** decimal128: 16 bytes, little-endian two's complement of the unscaled value. */
  private static final class DecimalCopier extends ColumnCopier {
    private final int precision;
    private final int scale;

    DecimalCopier(DecimalType type) {
      precision = type.precision();
      scale = type.scale();
    }

    @Override int bufferCount() { return 2; }

    @Override
    long measure(ColumnVector vector, int rows, long[] sizes, int at) {
      sizes[at] = validityBytes(vector, rows);
      sizes[at + 1] = 16L * rows;
      // An UnsafeRow keeps a decimal of over 18 digits in 16 bytes of its variable part, which
      // Spark's row writer reserves for a null one too (it may be set later).
      return precision > Decimal.MAX_LONG_DIGITS() ? 16L * rows : 0;
    }

    @Override
    long rowVarBytes(ColumnVector vector, int i) {
      return precision > Decimal.MAX_LONG_DIGITS() ? 16L : 0L;
    }

    @Override
    long measureInArray(ColumnVector vector, int rows, long[] sizes, int at) {
      measure(vector, rows, sizes, at);  // the buffers' sizes; an array's bytes differ from a row's
      long bytes = 0;
      if (precision > Decimal.MAX_LONG_DIGITS()) {
        for (int i = 0; i < rows; i++) bytes += arrayElementVarBytes(vector, i);
      }
      return bytes;
    }

    /**
     * An array keeps a decimal of over 18 digits in its minimal big-endian bytes (BigInteger's),
     * padded to 8, and nothing for a null one (Spark's UnsafeArrayWriter).
     */
    @Override
    long arrayElementVarBytes(ColumnVector vector, int i) {
      if (precision <= Decimal.MAX_LONG_DIGITS() || vector.isNullAt(i)) return 0L;
      final int length =
          vector.getDecimal(i, precision, scale).toJavaBigDecimal().unscaledValue().toByteArray()
              .length;
      return (length + 7) & ~7L;
    }

    @Override
    int fill(ColumnVector vector, int rows, long[] addresses, long[] reserved, int at) {
      final long out = addresses[at + 1];
      final boolean compact = precision <= Decimal.MAX_LONG_DIGITS();
      // Spark's writable vectors keep a decimal of up to 9 digits as an int, up to 18 as a long.
      final boolean writable = vector instanceof WritableColumnVector;
      for (int i = 0; i < rows; i++) {
        final long address = out + 16L * i;
        if (vector.isNullAt(i)) {
          Platform.putLong(null, address, 0L);
          Platform.putLong(null, address + 8, 0L);
        } else if (compact) {
          final long unscaled = !writable ? vector.getDecimal(i, precision, scale).toUnscaledLong()
              : precision <= Decimal.MAX_INT_DIGITS() ? vector.getInt(i) : vector.getLong(i);
          Platform.putLong(null, address, unscaled);
          Platform.putLong(null, address + 8, unscaled < 0 ? -1L : 0L);
        } else {
          putWide(vector.getDecimal(i, precision, scale), address);
        }
      }
      return fillValidity(vector, rows, addresses[at]);
    }

    private static void putWide(Decimal value, long address) {
      final BigInteger unscaled = value.toJavaBigDecimal().unscaledValue();
      final byte[] bigEndian = unscaled.toByteArray();  // at most 16 bytes for 38 digits
      final byte[] little = new byte[16];
      Arrays.fill(little, unscaled.signum() < 0 ? (byte) -1 : 0);
      for (int i = 0; i < bigEndian.length; i++) little[i] = bigEndian[bigEndian.length - 1 - i];
      Platform.copyMemory(little, Platform.BYTE_ARRAY_OFFSET, null, address, 16);
    }
  }

  /**
   * Strings and binaries: int32 offsets and the bytes. measure() reads every value once and keeps
   * it for fill(); a dictionary-encoded vector (Parquet's) is decoded once per dictionary entry
   * and batch, not once per row (decoding copies the value).
   */
  private static final class BytesCopier extends ColumnCopier {
    private UTF8String[] rowValues = new UTF8String[0];
    private UTF8String[] byDictionaryId = new UTF8String[0];

    @Override int bufferCount() { return 3; }

    @Override
    long measure(ColumnVector vector, int rows, long[] sizes, int at) {
      if (rowValues.length < rows) rowValues = new UTF8String[rows];
      final WritableColumnVector ids = dictionaryIds(vector);
      int maxId = -1;
      long bytes = 0;
      long rowBytes = 0;
      for (int i = 0; i < rows; i++) {
        if (vector.isNullAt(i)) {
          rowValues[i] = null;
          continue;
        }
        UTF8String value;
        if (ids == null) {
          value = bytesAt(vector, i);
        } else {
          final int id = ids.getDictId(i);
          if (id >= byDictionaryId.length) {
            byDictionaryId =
                Arrays.copyOf(byDictionaryId, Math.max(id + 1, 2 * byDictionaryId.length));
          }
          value = byDictionaryId[id];
          if (value == null) {
            value = bytesAt(vector, i);
            byDictionaryId[id] = value;
          }
          maxId = Math.max(maxId, id);
        }
        rowValues[i] = value;
        final int length = value.numBytes();
        bytes += length;
        rowBytes += (length + 7) & ~7L;  // an UnsafeRow pads variable-length values to 8
      }
      // The next batch may come with another dictionary (a new row group).
      if (maxId >= 0) Arrays.fill(byDictionaryId, 0, maxId + 1, null);
      if (bytes > Integer.MAX_VALUE) {
        throw new IllegalStateException("Sluice: a batch of " + bytes
            + " bytes of strings overflows Arrow's 32-bit offsets");
      }
      sizes[at] = validityBytes(vector, rows);
      sizes[at + 1] = 4L * (rows + 1);
      sizes[at + 2] = bytes;
      return rowBytes;
    }

    @Override
    int fill(ColumnVector vector, int rows, long[] addresses, long[] reserved, int at) {
      final long offsets = addresses[at + 1];
      final long data = addresses[at + 2];
      final long capacity = reserved[at + 2];
      int end = 0;
      Platform.putInt(null, offsets, 0);
      for (int i = 0; i < rows; i++) {
        final UTF8String value = rowValues[i];
        if (value != null) {
          final int length = value.numBytes();
          if (end + (long) length > capacity) {
            // Never write past the buffer, whatever measure() saw.
            throw new IllegalStateException("Sluice: the strings of row " + i + " take more than"
                + " the " + capacity + " bytes measured");
          }
          Platform.copyMemory(value.getBaseObject(), value.getBaseOffset(), null, data + end,
              length);
          end += length;
        }
        Platform.putInt(null, offsets + 4L * (i + 1), end);
      }
      // The values may view the batch's memory: they are not kept past it.
      Arrays.fill(rowValues, 0, rows, null);
      return fillValidity(vector, rows, addresses[at]);
    }

    @Override
    long rowVarBytes(ColumnVector vector, int i) {
      return vector.isNullAt(i) ? 0L : (bytesAt(vector, i).numBytes() + 7) & ~7L;
    }

    /** The dictionary ids of a dictionary-encoded vector; null for any other. */
    private static WritableColumnVector dictionaryIds(ColumnVector vector) {
      if (vector instanceof WritableColumnVector) {
        final WritableColumnVector writable = (WritableColumnVector) vector;
        if (writable.hasDictionary()) return writable.getDictionaryIds();
      }
      return null;
    }

    /** The bytes of a value, without copying them where the vector allows. */
    private static UTF8String bytesAt(ColumnVector vector, int i) {
      if (vector.dataType() instanceof StringType || vector instanceof WritableColumnVector) {
        return vector.getUTF8String(i);
      }
      return UTF8String.fromBytes(vector.getBinary(i));
    }
  }

  /** month_day_nano: int32 months, int32 days, int64 nanoseconds. */
  private static final class IntervalCopier extends ColumnCopier {
    @Override int bufferCount() { return 2; }

    @Override
    long measure(ColumnVector vector, int rows, long[] sizes, int at) {
      sizes[at] = validityBytes(vector, rows);
      sizes[at + 1] = 16L * rows;
      return 16L * (rows - vector.numNulls());
    }

    @Override
    long rowVarBytes(ColumnVector vector, int i) {
      return vector.isNullAt(i) ? 0L : 16L;
    }

    @Override
    int fill(ColumnVector vector, int rows, long[] addresses, long[] reserved, int at) {
      final long out = addresses[at + 1];
      for (int i = 0; i < rows; i++) {
        final long address = out + 16L * i;
        final CalendarInterval value = vector.isNullAt(i) ? null : vector.getInterval(i);
        Platform.putInt(null, address, value == null ? 0 : value.months);
        Platform.putInt(null, address + 4, value == null ? 0 : value.days);
        Platform.putLong(null, address + 8,
            value == null ? 0L : Math.multiplyExact(value.microseconds, 1000L));
      }
      return fillValidity(vector, rows, addresses[at]);
    }
  }

  /**
   * Structs: a validity bitmap, then each field's arrays, copied from the struct vector's
   * children row for row (a null struct's fields are copied too; Arrow ignores them). In an
   * UnsafeRow a struct is a nested UnsafeRow in the variable part, absent when null.
   */
  private static final class StructCopier extends ColumnCopier {
    private final ColumnCopier[] fields;
    private final int bufferCount;
    /** A nested UnsafeRow's null bitmap and 8-byte slots. */
    private final long fixedBytes;

    StructCopier(StructType type) {
      final StructField[] structFields = type.fields();
      fields = new ColumnCopier[structFields.length];
      int buffers = 1;
      int nodes = 1;
      for (int k = 0; k < fields.length; k++) {
        fields[k] = ColumnCopier.of(structFields[k].dataType());
        buffers += fields[k].bufferCount();
        nodes += fields[k].nodeCount();
      }
      bufferCount = buffers;
      fixedBytes = 8L * ((fields.length + 63) / 64) + 8L * fields.length;
      descendantNodes = new long[2 * (nodes - 1)];
    }

    @Override int bufferCount() { return bufferCount; }

    @Override
    long measure(ColumnVector vector, int rows, long[] sizes, int at) {
      sizes[at] = validityBytes(vector, rows);
      long bytes = fixedBytes * rows;
      int next = at + 1;
      for (int k = 0; k < fields.length; k++) {
        bytes += fields[k].measure(vector.getChild(k), rows, sizes, next);
        next += fields[k].bufferCount();
      }
      if (vector.hasNull()) {
        for (int i = 0; i < rows; i++) {
          if (vector.isNullAt(i)) bytes -= fixedBytes + fieldVarBytes(vector, i);
        }
      }
      return bytes;
    }

    @Override
    long rowVarBytes(ColumnVector vector, int i) {
      return vector.isNullAt(i) ? 0L : fixedBytes + fieldVarBytes(vector, i);
    }

    private long fieldVarBytes(ColumnVector vector, int i) {
      long bytes = 0;
      for (int k = 0; k < fields.length; k++) bytes += fields[k].rowVarBytes(vector.getChild(k), i);
      return bytes;
    }

    @Override
    int fill(ColumnVector vector, int rows, long[] addresses, long[] reserved, int at) {
      int next = at + 1;
      int node = 0;
      for (int k = 0; k < fields.length; k++) {
        node = fillChild(fields[k], vector.getChild(k), rows, addresses, reserved, next, node);
        next += fields[k].bufferCount();
      }
      return fillValidity(vector, rows, addresses[at]);
    }
  }

  /**
   * The elements of a batch's arrays (or a map's keys or values), array after array, viewed as
   * one column: gather() lists where each array's elements lie and writes the offsets.
   */
  private static final class Elements {
    final ElementsVector vector;
    private final ElementsVector.Slice slice = new ElementsVector.Slice();
    /** Arrow's offsets of the last gather(): rows + 1 entries. */
    int[] offsets = new int[1];
    /** Elements, and arrays that are not null, of the last gather(). */
    int total;
    int arrays;

    Elements(DataType type) {
      vector = new ElementsVector(type);
    }

    /**
     * Lists the elements of the non-null arrays of `column` (part: -1 for an array column, 0
     * or 1 for a map's keys or values); returns the bytes the arrays take as UnsafeArrayData
     * beyond their values' variable parts.
     */
    long gather(ColumnVector column, int rows, int part, int width) {
      if (offsets.length < rows + 1) offsets = new int[Math.max(rows + 1, 2 * offsets.length)];
      ColumnVector values = null;
      long arrayBytes = 0;
      int count = 0;
      int nonNull = 0;
      for (int i = 0; i < rows; i++) {
        offsets[i] = count;
        if (column.isNullAt(i)) continue;
        nonNull++;
        locate(column, i, part);
        if (slice.length > 0) {
          if (values == null) {
            values = slice.values;
          } else if (values != slice.values) {
            throw new IllegalStateException(
                "Sluice: the arrays of one batch lie in different element vectors");
          }
        }
        final int[] indices = vector.indices(count + slice.length);
        for (int e = 0; e < slice.length; e++) indices[count + e] = slice.offset + e;
        count += slice.length;
        arrayBytes += arrayFixedBytes(slice.length, width);
      }
      offsets[rows] = count;
      total = count;
      arrays = nonNull;
      vector.reset(values, count);
      return arrayBytes;
    }

    /** The bytes array `row` of `column` takes as UnsafeArrayData, its values' included. */
    long rowBytes(ColumnVector column, int row, int part, int width, ColumnCopier element) {
      locate(column, row, part);
      final ColumnVector values = slice.values;
      final int offset = slice.offset;
      final int length = slice.length;
      long bytes = arrayFixedBytes(length, width);
      for (int e = 0; e < length; e++) bytes += element.arrayElementVarBytes(values, offset + e);
      return bytes;
    }

    void writeOffsets(int rows, long address) {
      for (int i = 0; i <= rows; i++) Platform.putInt(null, address + 4L * i, offsets[i]);
    }

    private void locate(ColumnVector column, int row, int part) {
      if (part < 0) {
        ElementsVector.locate(column, row, slice);
      } else {
        ElementsVector.locateMap(column, row, part, slice);
      }
    }
  }

  /** Arrays of flat values: a validity bitmap, int32 offsets, the elements' arrays. */
  private static final class ListCopier extends ColumnCopier {
    private final ColumnCopier element;
    private final int width;
    private final Elements elements;

    ListCopier(ArrayType type) {
      element = ColumnCopier.of(type.elementType());
      width = arrayElementWidth(type.elementType());
      elements = new Elements(type.elementType());
      descendantNodes = new long[2 * element.nodeCount()];
    }

    @Override int bufferCount() { return 2 + element.bufferCount(); }

    @Override
    long measure(ColumnVector vector, int rows, long[] sizes, int at) {
      final long arrayBytes = elements.gather(vector, rows, -1, width);
      sizes[at] = validityBytes(vector, rows);
      sizes[at + 1] = 4L * (rows + 1);
      return arrayBytes + element.measureInArray(elements.vector, elements.total, sizes, at + 2);
    }

    @Override
    long rowVarBytes(ColumnVector vector, int i) {
      return vector.isNullAt(i) ? 0L : elements.rowBytes(vector, i, -1, width, element);
    }

    @Override
    int fill(ColumnVector vector, int rows, long[] addresses, long[] reserved, int at) {
      elements.writeOffsets(rows, addresses[at + 1]);
      fillChild(element, elements.vector, elements.total, addresses, reserved, at + 2, 0);
      return fillValidity(vector, rows, addresses[at]);
    }
  }

  /**
   * Maps of flat keys and values: a validity bitmap, int32 offsets, and the entries struct (no
   * validity) of the keys' and the values' arrays. In an UnsafeRow a map is the key array's
   * size, then the keys and the values as UnsafeArrayData.
   */
  private static final class MapCopier extends ColumnCopier {
    private final ColumnCopier key;
    private final ColumnCopier value;
    private final int keyWidth;
    private final int valueWidth;
    private final Elements keys;
    private final Elements values;

    MapCopier(MapType type) {
      key = ColumnCopier.of(type.keyType());
      value = ColumnCopier.of(type.valueType());
      keyWidth = arrayElementWidth(type.keyType());
      valueWidth = arrayElementWidth(type.valueType());
      keys = new Elements(type.keyType());
      values = new Elements(type.valueType());
      descendantNodes = new long[2 * (1 + key.nodeCount() + value.nodeCount())];
    }

    @Override int bufferCount() { return 3 + key.bufferCount() + value.bufferCount(); }

    @Override
    long measure(ColumnVector vector, int rows, long[] sizes, int at) {
      long bytes = keys.gather(vector, rows, 0, keyWidth);
      bytes += values.gather(vector, rows, 1, valueWidth);
      if (keys.total != values.total) {
        throw new IllegalStateException("Sluice: a batch's maps hold " + keys.total + " keys and "
            + values.total + " values");
      }
      bytes += 8L * keys.arrays;  // each map's key array size
      sizes[at] = validityBytes(vector, rows);
      sizes[at + 1] = 4L * (rows + 1);
      sizes[at + 2] = 0;  // the entries struct has no nulls
      bytes += key.measureInArray(keys.vector, keys.total, sizes, at + 3);
      return bytes
          + value.measureInArray(values.vector, values.total, sizes, at + 3 + key.bufferCount());
    }

    @Override
    long rowVarBytes(ColumnVector vector, int i) {
      if (vector.isNullAt(i)) return 0L;
      return 8L + keys.rowBytes(vector, i, 0, keyWidth, key)
          + values.rowBytes(vector, i, 1, valueWidth, value);
    }

    @Override
    int fill(ColumnVector vector, int rows, long[] addresses, long[] reserved, int at) {
      keys.writeOffsets(rows, addresses[at + 1]);
      descendantNodes[0] = keys.total;  // the entries, which have no nulls
      descendantNodes[1] = 0;
      final int node = fillChild(key, keys.vector, keys.total, addresses, reserved, at + 3, 1);
      fillChild(value, values.vector, values.total, addresses, reserved,
          at + 3 + key.bufferCount(), node);
      return fillValidity(vector, rows, addresses[at]);
    }
  }
}
