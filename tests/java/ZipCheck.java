// Exercises java.util.zip (which calls the system libz through OpenJDK's libzip) and prints
// only library-independent results: lengths and CRC-32s of decoded data, never compressed
// bytes. Run with and without the hyperz drop-in preloaded; the outputs must be identical.
// Usage: java ZipCheck SAMPLE_DIR WORK_DIR
import java.io.*;
import java.nio.file.*;
import java.util.*;
import java.util.zip.*;

public class ZipCheck {
    static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }

    static long crc(byte[] b, int len) {
        CRC32 c = new CRC32();
        c.update(b, 0, len);
        return c.getValue();
    }

    static byte[] deflate(byte[] in, int level, int strategy, boolean nowrap, byte[] dict, int flushEvery) {
        Deflater d = new Deflater(level, nowrap);
        d.setStrategy(strategy);
        if (dict != null) d.setDictionary(dict);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[1000];
        int pos = 0;
        while (pos < in.length) {
            int n = Math.min(flushEvery, in.length - pos);
            d.setInput(in, pos, n);
            pos += n;
            int mode = (pos / flushEvery) % 2 == 0 ? Deflater.SYNC_FLUSH : Deflater.FULL_FLUSH;
            while (true) {
                int k = d.deflate(buf, 0, buf.length, mode);
                out.write(buf, 0, k);
                if (k < buf.length && d.needsInput()) break;
            }
        }
        d.finish();
        while (!d.finished()) {
            int k = d.deflate(buf);
            out.write(buf, 0, k);
        }
        check(d.getBytesRead() == in.length, "getBytesRead");
        d.end();
        return out.toByteArray();
    }

    static byte[] inflate(byte[] in, boolean nowrap, byte[] dict, int expect) throws Exception {
        Inflater f = new Inflater(nowrap);
        // A raw stream cannot ask for its dictionary: it is set up front.
        if (nowrap && dict != null) f.setDictionary(dict);
        byte[] out = new byte[expect + 10];
        int got = 0;
        int pos = 0;
        while (!f.finished()) {
            if (f.needsInput()) {
                int n = Math.min(777, in.length - pos);
                check(n > 0 || nowrap, "input ran out");
                if (n == 0) { f.setInput(new byte[1]); } else { f.setInput(in, pos, n); pos += n; }
            }
            if (f.needsDictionary()) f.setDictionary(dict);
            got += f.inflate(out, got, out.length - got);
        }
        check(got == expect, "inflated length " + got + " != " + expect);
        f.end();
        return Arrays.copyOf(out, got);
    }

    public static void main(String[] args) throws Exception {
        File[] files = new File(args[0]).listFiles();
        Arrays.sort(files);
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (File f : files) all.write(Files.readAllBytes(f.toPath()));
        byte[] data = all.toByteArray();
        byte[] big = new byte[data.length * 4];
        for (int i = 0; i < 4; i++) System.arraycopy(data, 0, big, i * data.length, data.length);
        byte[] dict = Arrays.copyOfRange(data, 1000, 3000);
        System.out.println("corpus " + data.length + " crc " + crc(data, data.length));

        int[] strategies = {Deflater.DEFAULT_STRATEGY, Deflater.FILTERED, Deflater.HUFFMAN_ONLY};
        for (int level = 0; level <= 9; level += 3) {
            for (int s : strategies) {
                for (boolean nowrap : new boolean[] {false, true}) {
                    byte[] c = deflate(data, level, s, nowrap, level == 6 ? dict : null, 100000);
                    byte[] back = inflate(c, nowrap, dict, data.length);
                    check(Arrays.equals(back, data), "round trip " + level + " " + s + " " + nowrap);
                    System.out.println("deflate level " + level + " strategy " + s + " nowrap " + nowrap + " ok");
                }
            }
        }
        // A large stream through the one-shot path (goes parallel in the drop-in).
        byte[] c = deflate(big, 6, Deflater.DEFAULT_STRATEGY, false, null, big.length);
        check(Arrays.equals(inflate(c, false, null, big.length), big), "big round trip");
        System.out.println("big stream ok");

        // GZIP streams.
        Path gz = Paths.get(args[1], "data.gz");
        try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz), 65536)) {
            o.write(big);
        }
        try (InputStream i = new GZIPInputStream(Files.newInputStream(gz))) {
            byte[] back = i.readAllBytes();
            check(Arrays.equals(back, big), "gzip round trip");
            System.out.println("gzip stream " + back.length + " crc " + crc(back, back.length));
        }

        // ZIP archives: deflated and stored entries, read back with ZipFile and ZipInputStream.
        Path zip = Paths.get(args[1], "data.zip");
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(zip))) {
            for (File f : files) {
                ZipEntry e = new ZipEntry(f.getName());
                z.putNextEntry(e);
                z.write(Files.readAllBytes(f.toPath()));
                z.closeEntry();
            }
            z.setLevel(9);
            z.putNextEntry(new ZipEntry("big.bin"));
            z.write(big);
            z.closeEntry();
        }
        try (ZipFile zf = new ZipFile(zip.toFile())) {
            List<? extends ZipEntry> entries = Collections.list(zf.entries());
            check(entries.size() == files.length + 1, "entry count");
            for (ZipEntry e : entries) {
                byte[] b = zf.getInputStream(e).readAllBytes();
                check(e.getCrc() == crc(b, b.length), "zip crc " + e.getName());
                System.out.println("zip " + e.getName() + " " + b.length + " crc " + e.getCrc());
            }
        }
        try (ZipInputStream zi = new ZipInputStream(Files.newInputStream(zip))) {
            int n = 0;
            while (zi.getNextEntry() != null) {
                zi.readAllBytes();
                n++;
            }
            check(n == files.length + 1, "zip stream entries");
        }
        System.out.println("adler " + new Adler32() {{ update(data); }}.getValue());
        System.out.println("all checks passed");
    }
}
