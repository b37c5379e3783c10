package org.apache.spark.sql.sluice;

import java.math.BigDecimal;
import java.math.BigInteger;

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
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.CalendarInterval;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A Spark ColumnVector over one column of an Arrow batch in native memory, read in place: no
 * value is copied until Spark asks for it, and strings are UTF8Strings pointing at the Arrow data.
 *
 * The column is described by an Arrow C Data Interface ArrowArray (arrow/c/abi.h), whose fields
 * this reads at their fixed offsets. The native reader keeps the batch alive until it decodes the
 * next one, so a view must not be read after that (Spark's batch iterators do not). The Arrow
 * type of each Spark type is Sluice's (sluice/row/spark_type.h): dates are date32, timestamps
 * microseconds in int64, decimals decimal128, strings and binaries 32-bit offsets and bytes,
 * CalendarIntervalType month_day_nano, structs a validity bitmap and a child array per field
 * (viewed by getChild; Spark's getStruct reads them), arrays and maps of flat values int32
 * offsets over their elements (or their entries' keys and values), read through ColumnarArray
 * and ColumnarMap. Arrays of other types are not carried by the columnar path yet; the planner
 * keeps them on the row path.
 */
public final class ArrowColumnView extends ColumnVector {
  // struct ArrowArray: int64 length, null_count, offset, n_buffers, n_children;
  // const void** buffers; ArrowArray** children; ...
  private static final long LENGTH = 0;
  private static final long NULL_COUNT = 8;
  private static final long OFFSET = 16;
  private static final long BUFFER_COUNT = 24;
  private static final long CHILD_COUNT = 32;
  private static final long BUFFERS = 40;
  private static final long CHILDREN = 48;

  /** How the values are laid out, chosen once from the Spark type. */
  private enum Layout { NULL, BITS, FIXED, DECIMAL, BYTES, INTERVAL, STRUCT, LIST, MAP }

  private final Layout layout;
  private final int numNulls;
  private final long validity;
  private final long values;
  private final long data;
  private final long offset;
  /** A struct's fields, a list's elements, or a map's keys and values; empty for other types. */
  private final ArrowColumnView[] fields;

  /** Views the ArrowArray at `array` as a column of `type`. */
  public ArrowColumnView(DataType type, long array) {
    this(type, array, 0L);
  }

  /** `parentOffset`: the offset of the struct this array is a field of (Arrow adds them up). */
  private ArrowColumnView(DataType type, long array, long parentOffset) {
    super(type);
    layout = layoutOf(type);
    final long bufferCount = Platform.getLong(null, array + BUFFER_COUNT);
    final long buffers = Platform.getLong(null, array + BUFFERS);
    final long expected = layout == Layout.NULL ? 0
        : layout == Layout.STRUCT ? 1 : layout == Layout.BYTES ? 3 : 2;  // LIST, MAP: offsets
    if (bufferCount != expected) {
      throw new IllegalStateException("Sluice: an Arrow array of " + bufferCount
          + " buffers cannot be a column of " + type.catalogString());
    }
    numNulls = Math.toIntExact(layout == Layout.NULL
        ? Platform.getLong(null, array + LENGTH) : Platform.getLong(null, array + NULL_COUNT));
    offset = parentOffset + Platform.getLong(null, array + OFFSET);
    validity = expected > 0 ? Platform.getLong(null, buffers) : 0L;
    values = expected > 1 ? Platform.getLong(null, buffers + 8) : 0L;
    data = expected > 2 ? Platform.getLong(null, buffers + 16) : 0L;
    if (layout == Layout.STRUCT) {
      final StructField[] structFields = ((StructType) type).fields();
      final long childCount = Platform.getLong(null, array + CHILD_COUNT);
      if (childCount != structFields.length) {
        throw new IllegalStateException("Sluice: an Arrow struct of " + childCount
            + " children cannot be a column of " + type.catalogString());
      }
      final long children = Platform.getLong(null, array + CHILDREN);
      fields = new ArrowColumnView[structFields.length];
      for (int k = 0; k < fields.length; k++) {
        fields[k] = new ArrowColumnView(structFields[k].dataType(),
            Platform.getLong(null, children + 8L * k), offset);
      }
    } else if (layout == Layout.LIST) {
      final long element = onlyChild(array, type);
      fields = new ArrowColumnView[] {
          new ArrowColumnView(((ArrayType) type).elementType(), element, 0L)};
    } else if (layout == Layout.MAP) {
      final MapType map = (MapType) type;
      final long entries = onlyChild(array, type);
      final long entriesOffset = Platform.getLong(null, entries + OFFSET);
      final long entryChildren = Platform.getLong(null, entries + CHILDREN);
      if (Platform.getLong(null, entries + CHILD_COUNT) != 2) {
        throw new IllegalStateException(
            "Sluice: a map's entries must have a key and a value, in " + type.catalogString());
      }
      fields = new ArrowColumnView[] {
          new ArrowColumnView(map.keyType(), Platform.getLong(null, entryChildren), entriesOffset),
          new ArrowColumnView(map.valueType(), Platform.getLong(null, entryChildren + 8),
              entriesOffset)};
    } else {
      fields = new ArrowColumnView[0];
    }
  }

  private static long onlyChild(long array, DataType type) {
    if (Platform.getLong(null, array + CHILD_COUNT) != 1) {
      throw new IllegalStateException(
          "Sluice: an Arrow list or map must have one child, for " + type.catalogString());
    }
    return Platform.getLong(null, Platform.getLong(null, array + CHILDREN));
  }

  /** Whether the columnar path carries columns of `type`. */
  public static boolean supports(DataType type) {
    try {
      layoutOf(type);
      return true;
    } catch (UnsupportedOperationException e) {
      return false;
    }
  }

  private static Layout layoutOf(DataType type) {
    if (type instanceof NullType) return Layout.NULL;
    if (type instanceof BooleanType) return Layout.BITS;
    if (type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType
        || type instanceof LongType || type instanceof FloatType || type instanceof DoubleType
        || type instanceof DateType || type instanceof TimestampType
        || type instanceof TimestampNTZType || type instanceof YearMonthIntervalType
        || type instanceof DayTimeIntervalType || type instanceof TimeType) {
      return Layout.FIXED;
    }
    if (type instanceof DecimalType) return Layout.DECIMAL;
    if (type instanceof StringType || type instanceof BinaryType) return Layout.BYTES;
    if (type instanceof CalendarIntervalType) return Layout.INTERVAL;
    if (type instanceof StructType) {
      for (StructField field : ((StructType) type).fields()) layoutOf(field.dataType());
      return Layout.STRUCT;
    }
    if (type instanceof ArrayType
        && ArrowBatchCopier.arrayElementWidth(((ArrayType) type).elementType()) > 0) {
      return Layout.LIST;
    }
    if (type instanceof MapType
        && ArrowBatchCopier.arrayElementWidth(((MapType) type).keyType()) > 0
        && ArrowBatchCopier.arrayElementWidth(((MapType) type).valueType()) > 0) {
      return Layout.MAP;
    }
    throw new UnsupportedOperationException(
        "the columnar path does not carry " + type.catalogString() + " yet");
  }

  @Override
  public void close() {}

  @Override
  public boolean hasNull() {
    return numNulls > 0;
  }

  @Override
  public int numNulls() {
    return numNulls;
  }

  @Override
  public boolean isNullAt(int rowId) {
    if (layout == Layout.NULL) return true;
    if (validity == 0L) return false;
    final long bit = offset + rowId;
    return (Platform.getByte(null, validity + (bit >> 3)) & (1 << (bit & 7))) == 0;
  }

  @Override
  public boolean getBoolean(int rowId) {
    final long bit = offset + rowId;
    return (Platform.getByte(null, values + (bit >> 3)) & (1 << (bit & 7))) != 0;
  }

  @Override
  public byte getByte(int rowId) {
    return Platform.getByte(null, values + (offset + rowId));
  }

  @Override
  public short getShort(int rowId) {
    return Platform.getShort(null, values + 2L * (offset + rowId));
  }

  @Override
  public int getInt(int rowId) {
    return Platform.getInt(null, values + 4L * (offset + rowId));
  }

  @Override
  public long getLong(int rowId) {
    return Platform.getLong(null, values + 8L * (offset + rowId));
  }

  @Override
  public float getFloat(int rowId) {
    return Platform.getFloat(null, values + 4L * (offset + rowId));
  }

  @Override
  public double getDouble(int rowId) {
    return Platform.getDouble(null, values + 8L * (offset + rowId));
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    if (isNullAt(rowId)) return null;
    final long address = values + 16L * (offset + rowId);
    final long low = Platform.getLong(null, address);
    if (precision <= Decimal.MAX_LONG_DIGITS()) return Decimal.createUnsafe(low, precision, scale);
    final long high = Platform.getLong(null, address + 8);
    final byte[] bigEndian = new byte[16];
    for (int i = 0; i < 8; i++) {
      bigEndian[i] = (byte) (high >>> (56 - 8 * i));
      bigEndian[8 + i] = (byte) (low >>> (56 - 8 * i));
    }
    return Decimal.apply(new BigDecimal(new BigInteger(bigEndian), scale), precision, scale);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    if (isNullAt(rowId)) return null;
    final long at = values + 4L * (offset + rowId);
    final int start = Platform.getInt(null, at);
    return UTF8String.fromAddress(null, data + start, Platform.getInt(null, at + 4) - start);
  }

  @Override
  public byte[] getBinary(int rowId) {
    if (isNullAt(rowId)) return null;
    final long at = values + 4L * (offset + rowId);
    final int start = Platform.getInt(null, at);
    final byte[] bytes = new byte[Platform.getInt(null, at + 4) - start];
    Platform.copyMemory(null, data + start, bytes, Platform.BYTE_ARRAY_OFFSET, bytes.length);
    return bytes;
  }

  /** Arrow's month_day_nano: int32 months, int32 days, int64 nanoseconds (Spark: microseconds). */
  @Override
  public CalendarInterval getInterval(int rowId) {
    if (isNullAt(rowId)) return null;
    final long address = values + 16L * (offset + rowId);
    return new CalendarInterval(Platform.getInt(null, address), Platform.getInt(null, address + 4),
        Platform.getLong(null, address + 8) / 1000L);
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    if (isNullAt(rowId)) return null;
    final long at = values + 4L * (offset + rowId);
    final int start = Platform.getInt(null, at);
    return new ColumnarArray(fields[0], start, Platform.getInt(null, at + 4) - start);
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    if (isNullAt(rowId)) return null;
    final long at = values + 4L * (offset + rowId);
    final int start = Platform.getInt(null, at);
    return new ColumnarMap(fields[0], fields[1], start, Platform.getInt(null, at + 4) - start);
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    if (layout != Layout.STRUCT) {  // a list's and a map's children are read through them
      throw new UnsupportedOperationException("a column of " + dataType().catalogString()
          + " has no children");
    }
    return fields[ordinal];
  }
}
