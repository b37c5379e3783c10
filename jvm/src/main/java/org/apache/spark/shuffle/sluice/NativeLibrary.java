package org.apache.spark.shuffle.sluice;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;

/**
 * Loads libsluice_jni.so once per JVM: from the path in the system property or environment
 * variable SLUICE_JNI_LIBRARY when set (development), otherwise from the jar's resource
 * native/linux-x86_64/, extracted to a temporary file that is deleted as soon as it is loaded
 * (Linux keeps a loaded library mapped), so even a killed executor leaves nothing behind.
 */
public final class NativeLibrary {
  private static final String RESOURCE = "/native/linux-x86_64/libsluice_jni.so";
  private static volatile boolean loaded = false;

  private NativeLibrary() {}

  /** Loads the library if this JVM has not yet; returns its version string. */
  public static String load() {
    if (!loaded) {
      synchronized (NativeLibrary.class) {
        if (!loaded) {
          loadOnce();
          loaded = true;
        }
      }
    }
    return SluiceNative.version();
  }

  private static void loadOnce() {
    String override = System.getProperty("SLUICE_JNI_LIBRARY", System.getenv("SLUICE_JNI_LIBRARY"));
    if (override != null && !override.isEmpty()) {
      System.load(new File(override).getAbsolutePath());
      return;
    }
    String os = System.getProperty("os.name", "").toLowerCase();
    String arch = System.getProperty("os.arch", "");
    if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      throw new UnsatisfiedLinkError(
          "Sluice's jar carries its native library for linux x86_64 only, not " + os + " " + arch);
    }
    try (InputStream in = NativeLibrary.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new UnsatisfiedLinkError("the jar has no " + RESOURCE + " (build it with make jar)");
      }
      File file = File.createTempFile("libsluice_jni", ".so");
      try {
        Files.copy(in, file.toPath(), StandardCopyOption.REPLACE_EXISTING);
        System.load(file.getAbsolutePath());
      } finally {
        file.delete();
      }
    } catch (IOException e) {
      UnsatisfiedLinkError error = new UnsatisfiedLinkError("cannot extract " + RESOURCE + ": " + e);
      error.initCause(e);
      throw error;
    }
  }
}
