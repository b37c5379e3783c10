"""Map outputs for the interop tests with readers that are not Sluice's: a table whose first
column names each row's partition, the map output Sluice writes of it, and each partition's
segment as bytes."""

import pyarrow as pa

import sluice

from arrow_data import random_table, take_rows

PARTITIONS = 5


def keyed_table(schema, rows, seed):
    """A random table of `schema` with a first column "pid" naming each row's partition:
    partition 0 gets no row, partition 1 one row, the others the rest."""
    table = random_table(schema, rows, seed)
    ids = [1 if i == 0 else 2 + i % (PARTITIONS - 2) for i in range(rows)]
    return table.add_column(0, pa.field("pid", pa.int32(), nullable=False), pa.array(ids, pa.int32()))


def with_row_numbers(table):
    """The table with a last column "row" numbering its rows, to sort a shuffled copy back."""
    return table.append_column(pa.field("row", pa.int64(), nullable=False),
                               pa.array(range(table.num_rows), pa.int64()))


def partition_rows(table, partition):
    """The rows of `table` that partition `partition` holds, in order."""
    ids = table.column("pid").to_pylist()
    return take_rows(table, [i for i, p in enumerate(ids) if p == partition])


def map_output_segments(tmp_path, table, codec, **settings):
    """Writes `table` as one map output partitioned by "pid"; returns each partition's bytes."""
    data_path = tmp_path / f"shuffle_0_{codec}_0.data"
    with sluice.MapWriter(table.schema, data_path=str(data_path), partitioning="given", keys=["pid"],
                          partitions=PARTITIONS, codec=codec, overwrite=True, **settings) as writer:
        for batch in table.to_batches(max_chunksize=170):
            writer.write(batch)
    data = data_path.read_bytes()
    offsets = writer.output.offsets
    return [data[offsets[p]:offsets[p + 1]] for p in range(PARTITIONS)]
