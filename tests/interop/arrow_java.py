"""Arrow Java for the interop suite: java/ArrowJavaInterop.java, compiled once per test run
against arrow-vector and arrow-compression from Maven Central (java/pom.xml; Maven caches them
in ~/.m2, so a warm machine downloads nothing)."""

import pathlib
import subprocess

HERE = pathlib.Path(__file__).resolve().parent / "java"


class ArrowJava:
    """Runs ArrowJavaInterop from the class directory `classes` with `classpath`."""

    def __init__(self, classes, classpath):
        self.classpath = f"{classpath}:{classes}"

    def _run(self, *arguments):
        # arrow-memory reaches java.nio internals on Java 17.
        subprocess.run(["java", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", self.classpath,
                        "ArrowJavaInterop", *map(str, arguments)], check=True, capture_output=True)

    def decode(self, pairs, work):
        """Arrow Java decodes each input stream of `pairs` ((input, output) paths) and writes
        what it decoded to output, uncompressed, or why it refused to output + '.error'; one JVM
        for all of them."""
        listing = pathlib.Path(work) / "arrow_java_decode.list"
        listing.write_text("".join(f"{source}\t{target}\n" for source, target in pairs))
        self._run("decode", listing)

    def encode(self, source, target, codec):
        """Arrow Java's writer writes the stream `source` to `target` with body compression
        `codec` (none, lz4 or zstd)."""
        self._run("encode", source, target, codec)


def build(directory):
    """Resolves Arrow Java with Maven (offline first) and compiles the helper into `directory`."""
    directory = pathlib.Path(directory)
    classpath_file = directory / "classpath.txt"
    maven = ["mvn", "-B", "-q", "-f", str(HERE / "pom.xml"), "dependency:build-classpath",
             f"-Dmdep.outputFile={classpath_file}"]
    if subprocess.run([*maven, "-o"], capture_output=True).returncode != 0:
        subprocess.run(maven, check=True, capture_output=True)
    classpath = classpath_file.read_text().strip()
    classes = directory / "classes"
    subprocess.run(["javac", "-d", str(classes), "-cp", classpath, str(HERE / "ArrowJavaInterop.java")],
                   check=True, capture_output=True)
    return ArrowJava(classes, classpath)
