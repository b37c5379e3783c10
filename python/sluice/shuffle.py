"""A whole local shuffle in one call: many inputs written as map outputs, read back by partition.

    result = sluice.shuffle([table_a, "part-1.parquet", polars_frame], keys=["id"],
                            partitions=16, directory="shuffle-out")
    for partition in result:            # one pyarrow.RecordBatchReader per partition
        table = partition.read_all()
    result.partition(3).read_all()      # or any one of them
"""

from __future__ import annotations

import os
import pathlib
import sys
from typing import Any, Iterable, Iterator, List, Optional, Sequence, Union

import pyarrow as pa

from sluice.reader import read_partitions
from sluice.writer import MapOutput, MapWriter, _batches

Input = Union[pa.Table, pa.RecordBatch, pa.RecordBatchReader, str, os.PathLike, Any]


def _open_input(source: Input) -> pa.RecordBatchReader:
    """A reader of `source`: Arrow data (pyarrow, or anything with __arrow_c_stream__ or
    __arrow_c_array__, such as a polars DataFrame), or the path of a Parquet file or an Arrow IPC
    file or stream."""
    if isinstance(source, (str, os.PathLike)):
        path = pathlib.Path(source)
        if path.suffix == ".parquet":
            import pyarrow.parquet as pq
            parquet = pq.ParquetFile(path)
            return pa.RecordBatchReader.from_batches(parquet.schema_arrow,
                                                     parquet.iter_batches())
        with open(path, "rb") as file:
            magic = file.read(6)
        if magic == b"ARROW1":
            table = pa.ipc.open_file(pa.memory_map(str(path))).read_all()
            return pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
        return pa.ipc.open_stream(pa.memory_map(str(path)))
    batches = _batches(source)
    if isinstance(batches, pa.RecordBatchReader):
        return batches
    return pa.RecordBatchReader.from_batches(batches[0].schema, batches)


class _Progress:
    """A line on stderr while map outputs are written, only when stderr is a terminal."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.enabled = sys.stderr.isatty() and os.environ.get("SLUICE_PROGRESS", "1") != "0"

    def update(self, done: int, rows: int) -> None:
        if self.enabled:
            sys.stderr.write(f"\rsluice.shuffle: map output {done}/{self.total}, "
                             f"{rows:,} rows")
            sys.stderr.flush()

    def finish(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


class ShuffleResult:
    """The map outputs of a shuffle, read back by partition (map output order within each)."""

    def __init__(self, data_paths: List[str], outputs: List[MapOutput], partitions: int,
                 schema: pa.Schema, read_settings: dict) -> None:
        self.data_paths = data_paths
        self.outputs = outputs
        self.partitions = partitions
        self.schema = schema
        self._read_settings = read_settings

    def partition(self, index: int) -> pa.RecordBatchReader:
        """The rows of partition `index`, from every map output in input order."""
        if not 0 <= index < self.partitions:
            raise IndexError(f"partition {index} of a shuffle of {self.partitions} partitions")
        return read_partitions(self.data_paths, index, index + 1, schema=self.schema,
                               **self._read_settings)

    def __len__(self) -> int:
        return self.partitions

    def __getitem__(self, index: int) -> pa.RecordBatchReader:
        return self.partition(index)

    def __iter__(self) -> Iterator[pa.RecordBatchReader]:
        for index in range(self.partitions):
            yield self.partition(index)


def shuffle(inputs: Iterable[Input], keys: Optional[Sequence[str]] = None, partitions: int = 200,
            directory: Union[str, os.PathLike] = "sluice-shuffle", partitioning: Optional[str] = None,
            shuffle_id: int = 0, read_settings: Optional[dict] = None,
            **settings: Any) -> ShuffleResult:
    """Writes each input as one map output (map id = its position) of a shuffle in `directory`,
    in Spark's layout (shuffle_<id>_<map>_0.data, .index, .checksum.<ALGO>), and returns the
    result, read back one partition at a time.

    inputs: pyarrow Tables, RecordBatches or readers, polars DataFrames or any object with the
        Arrow PyCapsule interface, or paths of Parquet files or Arrow IPC files and streams. All
        must have the first one's schema.
    keys: the columns to hash (Spark's murmur3, as a repartition on them); without keys the rows
        are spread round-robin.
    settings: any other writer setting (codec="lz4", memory_budget="256MiB", checksum, ...).
    read_settings: reader settings for the partitions (coalesce, read_ahead, validate_utf8, ...).
    """
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    sources = list(inputs)
    if not sources:
        raise ValueError("sluice.shuffle needs at least one input")
    if partitioning is None:
        partitioning = "hash" if keys else "round-robin"
    progress = _Progress(len(sources))
    data_paths: List[str] = []
    outputs: List[MapOutput] = []
    schema: Optional[pa.Schema] = None
    rows = 0
    try:
        for map_id, source in enumerate(sources):
            reader = _open_input(source)
            if schema is None:
                schema = reader.schema
            path = directory / f"shuffle_{shuffle_id}_{map_id}_0.data"
            writer_settings = dict(settings, data_path=str(path), partitions=partitions,
                                   partitioning=partitioning, spark_files=True, map_id=map_id,
                                   overwrite=True)
            if keys:
                writer_settings["keys"] = list(keys)
            with MapWriter(schema, **writer_settings) as writer:
                for batch in reader:
                    writer.write(batch)
                    rows += batch.num_rows
                    progress.update(map_id, rows)
            outputs.append(writer.output)
            data_paths.append(str(path))
            progress.update(map_id + 1, rows)
    finally:
        progress.finish()
    return ShuffleResult(data_paths, outputs, partitions, schema, dict(read_settings or {}))
