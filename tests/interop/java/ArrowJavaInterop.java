// Arrow Java (arrow-vector with arrow-compression) reading and writing Arrow IPC streams for the
// interop suite (tests/interop/test_arrow_java_interop.py), with nothing of Sluice in it.
//
//   decode LIST     each line of LIST is "INPUT<TAB>OUTPUT": Arrow Java decodes the stream INPUT
//                   (LZ4 frame and zstd body compression included) and writes what it decoded to
//                   OUTPUT, uncompressed; if it refuses INPUT, OUTPUT.error holds why.
//   encode INPUT OUTPUT CODEC
//                   decodes INPUT and writes it to OUTPUT with Arrow Java's own writer and
//                   body compression CODEC (none, lz4 or zstd).
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.IpcOption;

public final class ArrowJavaInterop {
  private ArrowJavaInterop() {}

  /** Decodes `input` and writes every batch to `output` with `codec`. */
  private static void transcode(BufferAllocator allocator, String input, String output,
      CompressionUtil.CodecType codec) throws IOException {
    try (InputStream in = new FileInputStream(input);
        ArrowStreamReader reader =
            new ArrowStreamReader(in, allocator, CommonsCompressionFactory.INSTANCE);
        FileOutputStream out = new FileOutputStream(output)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      try (ArrowStreamWriter writer = new ArrowStreamWriter(root, reader, Channels.newChannel(out),
               IpcOption.DEFAULT,
               codec == CompressionUtil.CodecType.NO_COMPRESSION
                   ? NoCompressionCodec.Factory.INSTANCE
                   : CommonsCompressionFactory.INSTANCE,
               codec)) {
        writer.start();
        while (reader.loadNextBatch()) writer.writeBatch();
        writer.end();
      }
    }
  }

  private static CompressionUtil.CodecType codecNamed(String name) {
    switch (name) {
      case "none":
        return CompressionUtil.CodecType.NO_COMPRESSION;
      case "lz4":
        return CompressionUtil.CodecType.LZ4_FRAME;
      case "zstd":
        return CompressionUtil.CodecType.ZSTD;
      default:
        throw new IllegalArgumentException("unknown codec " + name);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("decode")) {
      // Each stream gets an allocator of its own: a stream Arrow Java refuses may leave buffers
      // behind (it does for unions it cannot load), which would fail the closing of a shared one.
      BufferAllocator root = new RootAllocator();
      List<String> lines = Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8);
      for (String line : lines) {
        if (line.isEmpty()) continue;
        String[] paths = line.split("\t");
        BufferAllocator allocator = root.newChildAllocator(paths[0], 0, Long.MAX_VALUE);
        boolean refused = false;
        try {
          transcode(allocator, paths[0], paths[1], CompressionUtil.CodecType.NO_COMPRESSION);
        } catch (Exception | AssertionError e) {
          refused = true;
          Files.deleteIfExists(Paths.get(paths[1]));
          try (PrintWriter error = new PrintWriter(paths[1] + ".error", "UTF-8")) {
            error.println(e);
          }
        }
        if (!refused) allocator.close();  // a stream read whole leaks nothing
      }
      return;
    }
    try (BufferAllocator allocator = new RootAllocator()) {
      if (args.length == 4 && args[0].equals("encode")) {
        transcode(allocator, args[1], args[2], codecNamed(args[3]));
      } else {
        System.err.println("usage: ArrowJavaInterop decode LIST | encode INPUT OUTPUT CODEC");
        System.exit(2);
      }
    }
  }
}
