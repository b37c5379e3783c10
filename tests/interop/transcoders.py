"""Arrow implementations in other languages as command-line transcoders, built once per test
run: Arrow Java (java/ArrowJavaInterop.java against arrow-vector and arrow-compression from
Maven Central, java/pom.xml) and arrow-rs (rust/, the arrow-ipc crate with its lz4 and zstd
features from crates.io). Maven and cargo cache what they download (~/.m2, ~/.cargo), so a warm
machine downloads nothing; cargo's build lands in the project's build directory and is reused.

Both take the same two commands:
    decode LIST                 each line "INPUT<TAB>OUTPUT": decode the stream INPUT and write
                                what was decoded to OUTPUT uncompressed, or why it was refused
                                to OUTPUT.error
    encode INPUT OUTPUT CODEC   rewrite INPUT with the implementation's own writer and body
                                compression CODEC (none, lz4 or zstd)
"""

import pathlib
import subprocess

import pyarrow as pa

HERE = pathlib.Path(__file__).resolve().parent
BUILD = HERE.parents[1] / "build"


class Transcoder:
    def __init__(self, name, command):
        self.name = name
        self.command = command

    def _run(self, *arguments):
        subprocess.run([*self.command, *map(str, arguments)], check=True, capture_output=True)

    def decode(self, streams, work):
        """What the implementation decodes from each stream (bytes): a pyarrow table of what it
        decoded, or the error text it refused with. One process for all of them."""
        work = pathlib.Path(work)
        pairs = []
        for i, stream in enumerate(streams):
            source = work / f"{self.name}_in_{i}.arrow"
            source.write_bytes(stream)
            pairs.append((source, work / f"{self.name}_out_{i}.arrow"))
        listing = work / f"{self.name}_decode.list"
        listing.write_text("".join(f"{source}\t{target}\n" for source, target in pairs))
        self._run("decode", listing)
        results = []
        for _, target in pairs:
            error = target.with_name(target.name + ".error")
            results.append(error.read_text() if error.exists()
                           else pa.ipc.open_stream(target.read_bytes()).read_all())
        return results

    def encode(self, source, target, codec):
        """Rewrites the stream file `source` to `target` with body compression `codec`."""
        self._run("encode", source, target, codec)


def build_arrow_java(directory):
    directory = pathlib.Path(directory)
    classpath_file = directory / "classpath.txt"
    maven = ["mvn", "-B", "-q", "-f", str(HERE / "java" / "pom.xml"), "dependency:build-classpath",
             f"-Dmdep.outputFile={classpath_file}"]
    if subprocess.run([*maven, "-o"], capture_output=True).returncode != 0:
        subprocess.run(maven, check=True, capture_output=True)
    classpath = classpath_file.read_text().strip()
    classes = directory / "classes"
    subprocess.run(["javac", "-d", str(classes), "-cp", classpath,
                    str(HERE / "java" / "ArrowJavaInterop.java")], check=True, capture_output=True)
    # arrow-memory reaches java.nio internals on Java 17.
    return Transcoder("arrow_java", ["java", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp",
                                     f"{classpath}:{classes}", "ArrowJavaInterop"])


def build_arrow_rs():
    target = BUILD / "interop-rust"
    subprocess.run(["cargo", "build", "-q", "--locked", "--manifest-path", str(HERE / "rust" / "Cargo.toml"),
                    "--target-dir", str(target)], check=True, capture_output=True)
    return Transcoder("arrow_rs", [str(target / "debug" / "sluice-arrow-rs-interop")])
