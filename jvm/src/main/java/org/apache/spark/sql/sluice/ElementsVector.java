package org.apache.spark.sql.sluice;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.CalendarInterval;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A ColumnVector over chosen values of another vector: value j is value indices[j] of the
 * underlying vector. The columnar path's copier views the elements of a batch's arrays (or a
 * map's keys or values), array after array, as one column this way, and copies them with the
 * copier of the element type, unchanged.
 *
 * {@link #locate} finds where an array's elements lie in any vector: Spark's writable vectors
 * say so directly (offset and length into their element vector); other vectors (ORC's, Arrow's)
 * hand out ColumnarArrays, whose element vector and offset are read from their private fields.
 */
final class ElementsVector extends ColumnVector {
  /** Where the elements of one array lie: `length` values of `values` from `offset`. */
  static final class Slice {
    ColumnVector values;
    int offset;
    int length;
  }

  private static final VarHandle ARRAY_DATA;
  private static final VarHandle ARRAY_OFFSET;

  static {
    try {
      final MethodHandles.Lookup lookup =
          MethodHandles.privateLookupIn(ColumnarArray.class, MethodHandles.lookup());
      ARRAY_DATA = lookup.findVarHandle(ColumnarArray.class, "data", ColumnVector.class);
      ARRAY_OFFSET = lookup.findVarHandle(ColumnarArray.class, "offset", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private ColumnVector values;
  private int[] indices = new int[0];
  private int count;
  private int nulls;
  /** A struct's fields, viewed at the same indices; made on demand, refreshed by reset(). */
  private final ElementsVector[] fields;
  private final boolean[] fieldsCurrent;

  ElementsVector(DataType type) {
    super(type);
    final int fieldCount = type instanceof StructType ? ((StructType) type).fields().length : 0;
    fields = new ElementsVector[fieldCount];
    fieldsCurrent = new boolean[fieldCount];
  }

  /** Finds the elements of array `row` of `vector` (an array column). */
  static void locate(ColumnVector vector, int row, Slice out) {
    if (vector instanceof WritableColumnVector) {
      final WritableColumnVector writable = (WritableColumnVector) vector;
      out.values = writable.arrayData();
      out.offset = writable.getArrayOffset(row);
      out.length = writable.getArrayLength(row);
    } else {
      fromArray(vector.getArray(row), out);
    }
  }

  /** Finds the keys (`part` 0) or values (1) of map `row` of `vector` (a map column). */
  static void locateMap(ColumnVector vector, int row, int part, Slice out) {
    if (vector instanceof WritableColumnVector) {
      final WritableColumnVector writable = (WritableColumnVector) vector;
      out.values = writable.getChild(part);
      out.offset = writable.getArrayOffset(row);
      out.length = writable.getArrayLength(row);
    } else {
      final ColumnarMap map = vector.getMap(row);
      fromArray(part == 0 ? map.keyArray() : map.valueArray(), out);
    }
  }

  private static void fromArray(ColumnarArray array, Slice out) {
    out.values = (ColumnVector) ARRAY_DATA.get(array);
    out.offset = (int) ARRAY_OFFSET.get(array);
    out.length = array.numElements();
  }

  /**
   * Room for `capacity` indices, the ones written so far kept; the array to fill (kept from
   * batch to batch).
   */
  int[] indices(int capacity) {
    if (indices.length < capacity) {
      indices = Arrays.copyOf(indices, Math.max(capacity, 2 * indices.length));
    }
    return indices;
  }

  /**
   * Views the `count` values of `values` that indices() names (values may be null when count
   * is 0).
   */
  void reset(ColumnVector values, int count) {
    this.values = values;
    this.count = count;
    int found = 0;
    if (values != null && values.hasNull()) {
      for (int j = 0; j < count; j++) {
        if (values.isNullAt(indices[j])) found++;
      }
    }
    nulls = found;
    Arrays.fill(fieldsCurrent, false);
  }

  @Override public void close() {}

  @Override public boolean hasNull() { return nulls > 0; }

  @Override public int numNulls() { return nulls; }

  @Override public boolean isNullAt(int j) { return values.isNullAt(indices[j]); }

  @Override public boolean getBoolean(int j) { return values.getBoolean(indices[j]); }

  @Override public byte getByte(int j) { return values.getByte(indices[j]); }

  @Override public short getShort(int j) { return values.getShort(indices[j]); }

  @Override public int getInt(int j) { return values.getInt(indices[j]); }

  @Override public long getLong(int j) { return values.getLong(indices[j]); }

  @Override public float getFloat(int j) { return values.getFloat(indices[j]); }

  @Override public double getDouble(int j) { return values.getDouble(indices[j]); }

  @Override
  public Decimal getDecimal(int j, int precision, int scale) {
    return values.getDecimal(indices[j], precision, scale);
  }

  @Override public UTF8String getUTF8String(int j) { return values.getUTF8String(indices[j]); }

  @Override public byte[] getBinary(int j) { return values.getBinary(indices[j]); }

  @Override public ColumnarArray getArray(int j) { return values.getArray(indices[j]); }

  @Override public ColumnarMap getMap(int j) { return values.getMap(indices[j]); }

  @Override
  public CalendarInterval getInterval(int j) {
    return values.getInterval(indices[j]);
  }

  /** A struct element's field `ordinal`, at the same indices. */
  @Override
  public ColumnVector getChild(int ordinal) {
    if (!fieldsCurrent[ordinal]) {
      if (fields[ordinal] == null) {
        fields[ordinal] =
            new ElementsVector(((StructType) dataType()).fields()[ordinal].dataType());
      }
      fields[ordinal].indices = indices;
      fields[ordinal].reset(values == null ? null : values.getChild(ordinal), count);
      fieldsCurrent[ordinal] = true;
    }
    return fields[ordinal];
  }
}
