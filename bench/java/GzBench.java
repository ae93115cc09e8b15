// Times java.util.zip's GZIPOutputStream (level 6, the JDK default) and GZIPInputStream on a
// file, best of N runs, and prints "compress_mbps decompress_mbps ratio". Used by
// bench/zlib_dropin.py with and without the hyperz drop-in preloaded.
import java.io.*;
import java.nio.file.*;
import java.util.zip.*;

public class GzBench {
    public static void main(String[] args) throws Exception {
        byte[] data = Files.readAllBytes(Paths.get(args[0]));
        int reps = Integer.parseInt(args[1]);
        double bestC = 1e9, bestD = 1e9;
        byte[] packed = null;
        for (int r = 0; r < reps; r++) {
            ByteArrayOutputStream bo = new ByteArrayOutputStream(data.length / 2);
            long t = System.nanoTime();
            try (GZIPOutputStream g = new GZIPOutputStream(bo, 1 << 16)) {
                g.write(data);
            }
            bestC = Math.min(bestC, (System.nanoTime() - t) / 1e9);
            packed = bo.toByteArray();
            t = System.nanoTime();
            byte[] back;
            try (GZIPInputStream g = new GZIPInputStream(new ByteArrayInputStream(packed), 1 << 16)) {
                back = g.readAllBytes();
            }
            bestD = Math.min(bestD, (System.nanoTime() - t) / 1e9);
            if (back.length != data.length) throw new AssertionError("round trip");
        }
        System.out.printf("%.1f %.1f %.4f%n", data.length / bestC / 1e6, data.length / bestD / 1e6,
                          (double) data.length / packed.length);
    }
}
