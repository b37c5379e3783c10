"""Random pyarrow data of every type Sluice carries, nested, with nulls at every level."""

import datetime
import decimal
import random

import pyarrow as pa

LEAF_TYPES = [
    pa.null(),
    pa.bool_(),
    pa.int8(),
    pa.int16(),
    pa.int32(),
    pa.int64(),
    pa.uint8(),
    pa.uint16(),
    pa.uint32(),
    pa.uint64(),
    pa.float32(),
    pa.float64(),
    pa.date32(),
    pa.timestamp("s"),
    pa.timestamp("ms", tz="UTC"),
    pa.timestamp("us", tz="America/New_York"),
    pa.timestamp("ns"),
    pa.decimal128(11, 2),
    pa.decimal128(38, 10),
    pa.string(),
    pa.large_string(),
    pa.binary(),
    pa.large_binary(),
    pa.binary(5),
    pa.float16(),
    pa.date64(),
    pa.time32("s"),
    pa.time32("ms"),
    pa.time64("us"),
    pa.time64("ns"),
    pa.duration("s"),
    pa.duration("ns"),
    pa.month_day_nano_interval(),
    pa.decimal32(7, 2),
    pa.decimal64(15, 3),
    pa.decimal256(10, 0),
    pa.decimal256(50, 5),
    pa.string_view(),
    pa.binary_view(),
]


def nested_types():
    """Nested types three deep, mixing list, large_list, struct and map; fixed-size lists, list
    views, run-end encoded columns and unions (type ids that are not the child indices)."""
    inner = pa.struct([("a", pa.int64()), ("b", pa.string()), pa.field("c", pa.float64(), nullable=False)])
    level2 = pa.struct([("s", inner), ("l", pa.list_(inner)), ("m", pa.map_(pa.string(), inner))])
    return [
        pa.list_(pa.int32()),
        pa.large_list(pa.string()),
        pa.map_(pa.string(), pa.int64()),
        level2,
        pa.list_(level2),
        pa.map_(pa.int32(), pa.large_list(level2)),
        pa.struct([("x", pa.list_(pa.list_(pa.decimal128(20, 4)))), ("y", pa.binary(3))]),
        pa.list_(pa.field("xyz", pa.float32(), nullable=False), 3),
        pa.list_(inner, 2),
        pa.list_view(pa.int32()),
        pa.large_list_view(inner),
        pa.run_end_encoded(pa.int32(), pa.string()),
        pa.run_end_encoded(pa.int16(), inner),
        pa.sparse_union([pa.field("i", pa.int32()), pa.field("s", pa.string()), pa.field("n", inner)],
                        type_codes=[0, 5, 2]),
        pa.dense_union([pa.field("s", pa.string()), pa.field("l", pa.list_(inner)),
                        pa.field("d", pa.float64())], type_codes=[3, 1, 7]),
        pa.dense_union([pa.field("t", pa.large_string()), pa.field("m", pa.map_(pa.string(), pa.int64()))]),
    ]


def dictionary_types():
    """Dictionary-encoded columns: top level under signed and unsigned indices of every width,
    over strings, integers, decimals and string views, inside a list and a struct."""
    return [
        pa.dictionary(pa.int8(), pa.string()),
        pa.dictionary(pa.uint16(), pa.int64()),
        pa.dictionary(pa.int64(), pa.decimal128(20, 4)),
        pa.dictionary(pa.uint32(), pa.large_string()),
        pa.dictionary(pa.int32(), pa.string_view()),
        pa.list_(pa.dictionary(pa.int32(), pa.int64())),
        pa.struct([("d", pa.dictionary(pa.uint8(), pa.string())), ("n", pa.int32())]),
    ]


def dictionary_schema(views=True):
    """A column of each dictionary type (those over string views only with `views`) and a
    plain int64 column."""
    fields = [pa.field(f"d{i}", t) for i, t in enumerate(dictionary_types())
              if views or not (pa.types.is_dictionary(t) and pa.types.is_string_view(t.value_type))]
    fields.append(pa.field("plain", pa.int64()))
    return pa.schema(fields)


def dictionary_values(table):
    """`table` with its dictionary-encoded columns (top level, in lists and structs) as their
    values: dictionary columns compare by value, whatever their dictionaries."""
    def unpacked(type_):
        if pa.types.is_dictionary(type_):
            return type_.value_type
        if pa.types.is_list(type_):
            return pa.list_(pa.field(type_.value_field.name, unpacked(type_.value_type)))
        if pa.types.is_struct(type_):
            return pa.struct([pa.field(f.name, unpacked(f.type), f.nullable) for f in type_])
        return type_
    return pa.table({name: column.cast(unpacked(column.type))
                     for name, column in zip(table.column_names, table.columns)})


def all_types_schema():
    fields = [pa.field(f"c{i}", t) for i, t in enumerate(LEAF_TYPES + nested_types())]
    fields.append(pa.field("required", pa.int64(), nullable=False))
    return pa.schema(fields)


def random_value(rng, data_type, nullable=True, null_probability=0.15):
    """A Python value of `data_type` that pa.array accepts."""
    if pa.types.is_null(data_type) or (nullable and rng.random() < null_probability):
        return None
    if pa.types.is_dictionary(data_type):
        # One of six values, so that they repeat (null among them).
        return random_value(random.Random(rng.randint(0, 5)), data_type.value_type)
    if pa.types.is_boolean(data_type):
        return rng.random() < 0.5
    if pa.types.is_integer(data_type):
        bits = data_type.bit_width
        if pa.types.is_signed_integer(data_type):
            return rng.randint(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        return rng.randint(0, (1 << bits) - 1)
    if pa.types.is_float16(data_type):
        import numpy
        return numpy.float16(rng.choice([0.0, -0.0, float("inf"), rng.uniform(-6e4, 6e4), rng.uniform(-1, 1)]))
    if pa.types.is_floating(data_type):
        return rng.choice([0.0, -0.0, float("inf"), rng.uniform(-1e6, 1e6), rng.uniform(-1, 1)])
    if pa.types.is_date32(data_type) or pa.types.is_date64(data_type):
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=rng.randint(-20000, 20000))
    if pa.types.is_time(data_type):
        per_day = {"s": 86400, "ms": 86400 * 10**3, "us": 86400 * 10**6, "ns": 86400 * 10**9}
        return rng.randint(0, per_day[data_type.unit] - 1)
    if pa.types.is_duration(data_type):
        return rng.randint(-(10**12), 10**12)
    if pa.types.is_interval(data_type):
        return pa.MonthDayNano([rng.randint(-1000, 1000), rng.randint(-1000, 1000),
                                rng.randint(-(10**15), 10**15)])
    if pa.types.is_timestamp(data_type):
        return rng.randint(-(10**12), 10**12)
    if pa.types.is_decimal(data_type):
        digits = data_type.precision
        unscaled = rng.randint(-(10**digits) + 1, 10**digits - 1)
        return decimal.Decimal(unscaled).scaleb(-data_type.scale)
    if pa.types.is_fixed_size_binary(data_type):
        return bytes(rng.getrandbits(8) for _ in range(data_type.byte_width))
    if pa.types.is_string(data_type) or pa.types.is_large_string(data_type):
        return "".join(rng.choice("abcdefghij€😁") for _ in range(rng.randint(0, 12)))
    if pa.types.is_binary(data_type) or pa.types.is_large_binary(data_type):
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 12)))
    # Views: inline values (12 bytes at most) and longer ones, in the data buffers.
    if pa.types.is_string_view(data_type):
        return "".join(rng.choice("abcdefghij€😁") for _ in range(rng.randint(0, 30)))
    if pa.types.is_binary_view(data_type):
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 40)))
    if pa.types.is_map(data_type):
        return [
            (random_value(rng, data_type.key_type, nullable=False), random_value(rng, data_type.item_field.type, data_type.item_field.nullable))
            for _ in range(rng.randint(0, 3))
        ]
    if pa.types.is_fixed_size_list(data_type):
        field = data_type.value_field
        return [random_value(rng, field.type, field.nullable) for _ in range(data_type.list_size)]
    if (pa.types.is_list(data_type) or pa.types.is_large_list(data_type)
            or pa.types.is_list_view(data_type) or pa.types.is_large_list_view(data_type)):
        field = data_type.value_field
        return [random_value(rng, field.type, field.nullable) for _ in range(rng.randint(0, 3))]
    if pa.types.is_run_end_encoded(data_type):
        return random_value(rng, data_type.value_type, nullable, null_probability)
    if pa.types.is_struct(data_type):
        return {
            data_type.field(i).name: random_value(rng, data_type.field(i).type, data_type.field(i).nullable)
            for i in range(data_type.num_fields)
        }
    raise TypeError(f"no generator for {data_type}")


def random_union(rng, union_type, rows):
    """A union column of `rows` rows, each selecting a random child (pa.array builds no unions)."""
    fields = [union_type.field(i) for i in range(union_type.num_fields)]
    codes = list(union_type.type_codes)
    choices = [rng.randrange(len(fields)) for _ in range(rows)]
    type_ids = pa.array([codes[c] for c in choices], pa.int8())
    names = [f.name for f in fields]

    def child(field, length):
        return pa.array([random_value(rng, field.type, field.nullable) for _ in range(length)],
                        type=field.type)
    if union_type.mode == "sparse":
        return pa.UnionArray.from_sparse(type_ids, [child(f, rows) for f in fields], names, codes)
    counts = [0] * len(fields)
    offsets = []
    for c in choices:
        offsets.append(counts[c])
        counts[c] += 1
    return pa.UnionArray.from_dense(type_ids, pa.array(offsets, pa.int32()),
                                    [child(f, n) for f, n in zip(fields, counts)], names, codes)


def random_table(schema, rows, seed):
    rng = random.Random(seed)
    columns = []
    for field in schema:
        if pa.types.is_union(field.type):
            columns.append(random_union(rng, field.type, rows))
            continue
        if pa.types.is_run_end_encoded(field.type):
            # Runs of one to four rows (pyarrow joins equal neighbours into one run).
            values = []
            while len(values) < rows:
                values += [random_value(rng, field.type, field.nullable)] * rng.randint(1, 4)
            values = values[:rows]
        else:
            values = [random_value(rng, field.type, field.nullable) for _ in range(rows)]
        if pa.types.is_dictionary(field.type):
            # pyarrow builds dictionaries of few value types from Python values: encode them.
            encoded = pa.array(values, type=field.type.value_type).dictionary_encode()
            columns.append(pa.DictionaryArray.from_arrays(
                encoded.indices.cast(field.type.index_type), encoded.dictionary))
            continue
        columns.append(pa.array(values, type=field.type))
    return pa.Table.from_arrays(columns, schema=schema)


def take_rows(table, indices):
    """Rows `indices` of `table`, in order. (pyarrow's take has no kernel for the view types:
    the rows are sliced, contiguous ones together, and concatenated.)"""
    pieces = []
    start = previous = None
    for index in indices:
        if previous is not None and index == previous + 1:
            previous = index
            continue
        if start is not None:
            pieces.append(table.slice(start, previous - start + 1))
        start = previous = index
    if start is not None:
        pieces.append(table.slice(start, previous - start + 1))
    return pa.concat_tables(pieces) if pieces else table.slice(0, 0)


def sort_rows(table, column):
    """`table` sorted by `column` (Table.sort_by, which takes rows with pyarrow's take)."""
    import pyarrow.compute as pc
    return take_rows(table, pc.sort_indices(table, [(column, "ascending")]).to_pylist())


def dictionary_batches():
    """Batches whose dictionary-encoded columns (utf8 under int8 and uint32 indices, int64 under
    int16, utf8 inside a list) change their dictionaries from batch to batch, with nulls among
    the indices."""
    batches = []
    for b in range(3):
        rows = 30 + b
        word = pa.DictionaryArray.from_arrays(
            pa.array([i % 3 if i % 7 else None for i in range(rows)], pa.int8()),
            pa.array([f"w{b}", "x", "a longer value than twelve bytes"]))
        number = pa.DictionaryArray.from_arrays(pa.array([i % 4 for i in range(rows)], pa.int16()),
                                                pa.array([b, 10 + b, 20, 30], pa.int64()))
        tags = pa.ListArray.from_arrays(
            pa.array([min(2 * i, 2 * rows - 1) for i in range(rows + 1)], pa.int32()),
            pa.DictionaryArray.from_arrays(pa.array([i % 2 for i in range(2 * rows)], pa.uint32()),
                                           pa.array(["t", f"u{b}"])))
        batches.append(pa.record_batch(
            [pa.array(range(100 * b, 100 * b + rows), pa.int64()), word, number, tags],
            names=["row", "word", "number", "tags"]))
    return batches
