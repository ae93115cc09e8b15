//! Stream codecs for the CLI: gzip compression of a reader into a writer, and decompression of
//! any gzip stream (multi-member included) with gzip's handling of trailing data, of the first
//! entry of a zip archive as gzip reads it (`zip.rs`), of a compress (.Z) file (`lzw.rs`), of an LZH file (`lzh.rs`), and
//! of a zlib stream (pigz's `-z` output) as pigz reads it.
//!
//! Errors keep the side they came from (read, write, corrupt data) so the file layer can name
//! the file and the problem, and decide what to clean up.

use crate::members::{Members, Redo};
use crate::progress::Progress;
use hyperz_device::container::HZ_HEADER_LEN;
use hyperz_device::{Device, ParallelDeflater, Settings, Strategy};
use hyperz_engine::checksum::crc32;
use hyperz_engine::deflate::{gzip_header, gzip_xfl};
use hyperz_engine::inflate::{ErrorKind, InflateError, Inflater, StreamState};
use hyperz_engine::{Format, GzipHeader};
use std::io::{self, Read, Write};

/// Size of the read and write buffers: large enough to amortise system calls and to keep the
/// engines busy, small enough to stay in L2 alongside the engine state.
const IO_CHUNK: usize = 256 * 1024;

/// Why a stream operation failed.
#[derive(Debug)]
pub enum CodecError {
    /// Reading the input failed.
    Read(io::Error),
    /// Writing the output failed.
    Write(io::Error),
    /// The compressed input is invalid; `offset` is the byte offset in the whole input (the
    /// error's own is within its member).
    Corrupt { error: InflateError, offset: u64 },
    /// The input ended inside a gzip member.
    Truncated { offset: u64 },
    /// The input is not in gzip format at all.
    NotGzip,
    /// The input is in a format, or uses a feature of one, that only another tool reads.
    Unsupported(&'static str),
}

impl std::fmt::Display for CodecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CodecError::Read(e) => write!(f, "read error: {e}"),
            CodecError::Write(e) => write!(f, "write error: {e}"),
            CodecError::Corrupt { error, offset } => {
                write!(
                    f,
                    "invalid compressed data at byte {offset}: {}",
                    error.kind
                )
            }
            CodecError::Truncated { offset } => {
                let s = if *offset == 1 { "" } else { "s" };
                write!(f, "unexpected end of file (after {offset} byte{s})")
            }
            CodecError::NotGzip => write!(f, "not in gzip format"),
            CodecError::Unsupported(what) => write!(f, "{what}"),
        }
    }
}

/// How to compress.
#[derive(Clone, Debug)]
pub struct CompressSpec {
    /// Level 0-12.
    pub level: u32,
    /// zlib strategy (`-H`, `-U`).
    pub strategy: Strategy,
    /// Independent-block output (`-i`).
    pub independent: bool,
    /// A zlib stream (`-z`) instead of gzip; the header is then not written.
    pub zlib: bool,
    /// A zip archive of one entry (`-K`) instead of gzip, named and dated from the header
    /// ("-" and the current time without them, as pigz).
    pub zip: bool,
    /// Blocks end at input-determined positions (`--rsyncable`).
    pub rsyncable: bool,
    /// The gzip header (name, mtime) to write.
    pub header: GzipHeader,
}

/// Byte counts of a finished operation.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    /// Bytes read.
    pub bytes_in: u64,
    /// Bytes written.
    pub bytes_out: u64,
}

/// A writer that counts what passes through it.
struct Counting<W> {
    inner: W,
    count: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A reader that counts the bytes it passes and advances the progress bar (the zip and
/// compress readers, which do their own buffering).
pub(crate) struct Counted<'a> {
    pub inner: &'a mut dyn Read,
    pub progress: &'a Progress,
    /// Bytes read so far.
    pub n: u64,
}

impl<'a> Counted<'a> {
    /// Counts what `inner` gives, from 0.
    pub fn new(inner: &'a mut dyn Read, progress: &'a Progress) -> Self {
        Counted {
            inner,
            progress,
            n: 0,
        }
    }
}

impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.n += n as u64;
        self.progress.advance(n as u64);
        Ok(n)
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
pub(crate) fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> Result<usize, CodecError> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(CodecError::Read(e)),
        }
    }
    Ok(n)
}

/// Compresses `r` into `w` on every engine of `dev`: one gzip member carrying the header's name
/// and mtime (the engines produce the raw DEFLATE body in parallel, this thread keeps the
/// CRC-32), or, with `independent`, a multi-member stream of independently decodable members,
/// or with `zlib` one zlib stream (the engines' Adler-32s combined).
pub fn compress(
    r: &mut dyn Read,
    w: &mut dyn Write,
    spec: &CompressSpec,
    dev: &Device,
    progress: &Progress,
) -> Result<Counts, CodecError> {
    let settings = Settings::new(spec.level, spec.strategy);
    let mut z = if spec.independent {
        ParallelDeflater::independent(dev, settings)
    } else if spec.zlib {
        ParallelDeflater::new(dev, Format::Zlib, settings)
    } else {
        ParallelDeflater::new(dev, Format::Raw, settings)
    }
    .rsyncable(spec.rsyncable);
    let mut out = Vec::with_capacity(IO_CHUNK);
    let mut counts = Counts::default();
    // A gzip member or a zip entry is framed here (the engines write raw DEFLATE); zlib by
    // the deflater.
    let gzip = !spec.independent && !spec.zlib && !spec.zip;
    let zip_name = spec.header.name.clone().unwrap_or_else(|| b"-".to_vec());
    let zip_time = match spec.header.mtime {
        0 => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as u32),
        t => t,
    };
    if gzip {
        gzip_header(&mut out, &spec.header, gzip_xfl(spec.level, false));
    } else if spec.zip {
        out = crate::zip::local_header(&zip_name, zip_time);
    }
    let header_len = out.len() as u64;
    let mut input = vec![0u8; IO_CHUNK];
    let mut crc = 0u32;
    loop {
        let n = read_full(r, &mut input)?;
        if n == 0 {
            break;
        }
        counts.bytes_in += n as u64;
        progress.advance(n as u64);
        if gzip || spec.zip {
            crc = crc32(crc, &input[..n]);
        }
        z.write(&input[..n], &mut out);
        if !out.is_empty() {
            w.write_all(&out).map_err(CodecError::Write)?;
            counts.bytes_out += out.len() as u64;
            out.clear();
        }
    }
    z.finish(&mut out);
    if gzip {
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&(counts.bytes_in as u32).to_le_bytes());
    } else if spec.zip {
        let at = counts.bytes_out + out.len() as u64;
        let sizes = (crc, at - header_len, counts.bytes_in);
        out.extend(crate::zip::trailer(&zip_name, zip_time, sizes, at, false));
    }
    w.write_all(&out).map_err(CodecError::Write)?;
    counts.bytes_out += out.len() as u64;
    w.flush().map_err(CodecError::Write)?;
    Ok(counts)
}

/// What decompression found besides the data.
#[derive(Debug, Default)]
pub struct DecodeReport {
    /// Byte counts.
    pub counts: Counts,
    /// The first member's header (name and mtime for -N).
    pub header: Option<GzipHeader>,
    /// Members decoded.
    pub members: u64,
    /// The last member's uncompressed length (its ISIZE holds it modulo 2^32; for a zip
    /// archive or a compress file, the whole output): `gzip -l` shows it.
    pub last_member_out: u64,
    /// Non-zero bytes after the last member were ignored (gzip warns and exits with 2).
    pub trailing_garbage: bool,
    /// Zero bytes (tape padding) after the last member were ignored (gzip says so with -v).
    pub trailing_zeros: bool,
    /// The input was a zip archive whose first entry has this method (0 stored, 8 deflated).
    pub zip_method: Option<u16>,
    /// The zip archive has entries after the first, which were not decompressed (gzip warns).
    pub more_entries: bool,
    /// The input was a compress (.Z) file.
    pub lzw: bool,
    /// The input was an LZH (SCO `compress -H`) file.
    pub lzh: bool,
    /// The input started with packed (.z) members.
    pub pack: bool,
    /// Read past the last gzip member: the start of a member of another format gzip reads
    /// after one (packed, compress, LZH), for [`decompress`] to go on with. Not counted in
    /// `counts`.
    pub handoff: Option<Vec<u8>>,
}

impl DecodeReport {
    /// The report of a format that is one member read to the input's end (a compress or
    /// LZH file, a zip archive's first entry): `bytes_in` read, `bytes_out` written.
    pub fn one_member(bytes_in: u64, bytes_out: u64) -> DecodeReport {
        DecodeReport {
            counts: Counts {
                bytes_in,
                bytes_out,
            },
            members: 1,
            last_member_out: bytes_out,
            ..DecodeReport::default()
        }
    }
}

/// The magic gzip 0.5 wrote (`OLD_GZIP_MAGIC` in gzip's source); the member is the same as one
/// with `1f 8b`.
pub const OLD_GZIP_MAGIC: [u8; 2] = [0x1f, 0x9e];

/// Whether `b` starts a zlib stream (RFC 1950) as pigz recognises one: deflate with a window
/// of at most 32 KiB, a header check that holds, and no preset dictionary.
fn is_zlib(b: &[u8]) -> bool {
    b.len() >= 2
        && b[0] & 0x0f == 8
        && b[0] >> 4 <= 7
        && b[1] & 0x20 == 0
        && (u16::from(b[0]) << 8 | u16::from(b[1])) % 31 == 0
}

/// Decompresses `r` to `w`: a gzip stream (any number of members), the first entry of a zip
/// archive, a compress (.Z) file, an LZH file, packed (.z) members, or one zlib stream, told apart by their
/// first bytes as gzip and pigz do. With
/// `copy_plain` (gzip's `-f` with `-c` or `-t`, as `zcat -f` uses it), input that is not gzip,
/// from the start or after the last member, is copied through unchanged instead of being an
/// error or trailing garbage; it is then never taken for zlib, whose two-byte header plain text
/// can start with ("x^").
pub fn decompress(
    r: &mut dyn Read,
    w: &mut dyn Write,
    progress: &Progress,
    copy_plain: bool,
    dev: Option<&Device>,
    wait: Option<&dyn Fn() -> bool>,
) -> Result<DecodeReport, CodecError> {
    let mut magic = [0u8; 4];
    let n = read_full(r, &mut magic)?;
    let mut r = io::Cursor::new(&magic[..n]).chain(r);
    if magic[..n] == crate::zip::LOCAL {
        return crate::zip::decompress(&mut r, w, progress);
    }
    // The first member, then the members of other formats that follow it as gzip reads them:
    // a packed member or a gzip member (gzip 1.12's get_method, for each member) may be
    // followed by a packed, gzip, compress or LZH one; compress and LZH read to the end.
    let (mut report, mut follows) = if n >= 2 && magic[..2] == crate::lzw::MAGIC {
        (crate::lzw::decompress(&mut r, w, progress)?, None)
    } else if n >= 2 && magic[..2] == crate::lzh::MAGIC {
        (crate::lzh::decompress(&mut r, w, progress)?, None)
    } else if n >= 2 && magic[..2] == crate::pack::MAGIC {
        crate::pack::decompress(&mut r, w, progress, copy_plain)?
    } else {
        let format = if !copy_plain && is_zlib(&magic[..n]) {
            Format::Zlib
        } else {
            Format::Gzip
        };
        let mut report = decompress_stream(&mut r, w, progress, copy_plain, format, dev, wait)?;
        let handoff = report.handoff.take();
        (report, handoff)
    };
    while let Some(read) = follows.take() {
        // The bytes read ahead were counted in the progress already, the rest of the input
        // is not yet.
        let mut tail = Counted::new(&mut r, progress);
        let mut rest = io::Cursor::new(read).chain(&mut tail);
        let none = Progress::none();
        let magic = rest
            .get_ref()
            .0
            .get_ref()
            .get(..2)
            .unwrap_or_default()
            .to_vec();
        let next = if magic == crate::lzw::MAGIC {
            crate::lzw::decompress(&mut rest, w, &none)?
        } else if magic == crate::lzh::MAGIC {
            crate::lzh::decompress(&mut rest, w, &none)?
        } else if magic == crate::pack::MAGIC {
            let (next, f) = crate::pack::decompress(&mut rest, w, &none, copy_plain)?;
            follows = f;
            next
        } else {
            let gzip = Format::Gzip;
            let mut next = decompress_stream(&mut rest, w, &none, copy_plain, gzip, dev, wait)?;
            follows = next.handoff.take();
            next
        };
        report.counts.bytes_in += next.counts.bytes_in;
        report.counts.bytes_out += next.counts.bytes_out;
        report.members += next.members;
        report.last_member_out = next.last_member_out;
        report.trailing_garbage = next.trailing_garbage;
        report.trailing_zeros = next.trailing_zeros;
    }
    Ok(report)
}

/// Whether `b` starts a member of a format gzip reads after a gzip member.
fn follower(b: &[u8]) -> bool {
    [crate::pack::MAGIC, crate::lzw::MAGIC, crate::lzh::MAGIC]
        .iter()
        .any(|m| b.starts_with(m))
}

/// Puts the members an engine failed on (see [`Members`]) back in front of the unread input,
/// uncounted, for the sequential decoder.
fn redo_sequentially(
    r: Redo,
    buf: &mut Vec<u8>,
    start: &mut usize,
    end: &mut usize,
    report: &mut DecodeReport,
) {
    let mut b = r.bytes;
    b.extend_from_slice(&buf[*start..*end]);
    (*start, *end) = (0, b.len());
    b.resize(b.len().max(IO_CHUNK), 0);
    *buf = b;
    report.members -= r.members;
}

/// [`decompress`] for gzip (members until the input ends) and zlib (one stream) input. With
/// `dev`, independent members after the first are decoded on its engines ([`Members`]).
fn decompress_stream(
    r: &mut dyn Read,
    w: &mut dyn Write,
    progress: &Progress,
    copy_plain: bool,
    format: Format,
    dev: Option<&Device>,
    wait: Option<&dyn Fn() -> bool>,
) -> Result<DecodeReport, CodecError> {
    let mut w = Counting { inner: w, count: 0 };
    let mut par = dev.and_then(Members::new);
    let mut buf = vec![0u8; IO_CHUNK];
    let mut out = vec![0u8; IO_CHUNK];
    let (mut start, mut end) = (0usize, 0usize);
    let mut eof = false;
    let mut consumed_total: u64 = 0; // input bytes before buf[start]
    let mut report = DecodeReport::default();
    let mut inflater = Inflater::new(format, 15);
    let mut member_start = true;
    let mut member_at: u64 = 0; // input bytes before the current member

    // Refills the buffer so at least `want` bytes are available unless the input ends.
    // Reads until `want` bytes (at most the buffer's length) are in `buf[start..end]` or the
    // input ends. Each read takes what the input has: data that has arrived is decoded without
    // waiting for the buffer to fill (a pipe whose writer pauses, as gzip handles it).
    let mut refill =
        |buf: &mut Vec<u8>, start: &mut usize, end: &mut usize, eof: &mut bool, want: usize| {
            if *start > 0 {
                buf.copy_within(*start..*end, 0);
                *end -= *start;
                *start = 0;
            }
            let want = want.min(buf.len());
            while *end < want && !*eof {
                let n = match r.read(&mut buf[*end..]) {
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(CodecError::Read(e)),
                };
                progress.advance(n as u64);
                *eof = n == 0;
                *end += n;
            }
            Ok::<(), CodecError>(())
        };

    // Whether the next read may wait for input: `wait` says the input may, and its probe
    // that no data is at hand.
    let would_wait = |eof: bool| !eof && wait.is_some_and(|ready| !ready());
    loop {
        if member_start {
            // A read that would wait (a pipe whose writer pauses) first writes out the
            // members out on the engines: gzip writes as it decodes, and a writer that waits
            // for this output must get it (it was held until the input went on).
            let wants = |start: usize, end: usize, buf: &[u8]| {
                end - start < HZ_HEADER_LEN
                    || Members::member_at(&buf[start..end])
                        .is_some_and(|(len, _)| end - start < len)
            };
            if would_wait(eof) && wants(start, end, &buf) {
                if let Some(p) = par.as_mut() {
                    if let Some(r) = p.drain(&mut w)? {
                        consumed_total -= r.bytes.len() as u64;
                        redo_sequentially(r, &mut buf, &mut start, &mut end, &mut report);
                        par = None;
                        continue;
                    }
                }
                w.flush().map_err(CodecError::Write)?;
            }
            if end - start < HZ_HEADER_LEN && !eof {
                refill(&mut buf, &mut start, &mut end, &mut eof, HZ_HEADER_LEN)?;
            }
            if let Some(p) = par.as_mut() {
                // After the first member (whose header -N needs), independent members go to
                // the engines whole; anything else waits until they are out.
                let hz = (report.members > 0 && format == Format::Gzip)
                    .then(|| Members::member_at(&buf[start..end]))
                    .flatten();
                if let Some((len, raw_len)) = hz {
                    if end - start < len {
                        if buf.len() < len {
                            buf.resize(len, 0);
                        }
                        refill(&mut buf, &mut start, &mut end, &mut eof, len)?;
                    }
                    let member = (end - start >= len).then(|| &buf[start..start + len]);
                    let raw_len = member.and_then(|m| raw_len.or_else(|| Members::bgzf_raw_len(m)));
                    if let (Some(member), Some(raw_len)) = (member, raw_len) {
                        match p.submit(member, raw_len, &mut w)? {
                            None => {
                                start += len;
                                consumed_total += len as u64;
                                report.members += 1;
                                report.last_member_out = raw_len as u64;
                            }
                            Some(r) => {
                                consumed_total -= r.bytes.len() as u64;
                                redo_sequentially(r, &mut buf, &mut start, &mut end, &mut report);
                                par = None;
                            }
                        }
                        continue;
                    }
                }
                if let Some(r) = p.drain(&mut w)? {
                    consumed_total -= r.bytes.len() as u64;
                    redo_sequentially(r, &mut buf, &mut start, &mut end, &mut report);
                    par = None;
                    continue;
                }
            }
            if start == end {
                // An empty input ends before gzip's magic: "unexpected end of file", as gzip
                // says, not "not in gzip format".
                if report.members == 0 && !copy_plain {
                    return Err(CodecError::Truncated {
                        offset: consumed_total,
                    });
                }
                break;
            }
            if format == Format::Gzip && buf[start..end].starts_with(&OLD_GZIP_MAGIC) {
                // gzip 0.5's magic: the same member (gzip 1.12 still reads it), given to the
                // decoder with the magic it knows.
                buf[start + 1] = 0x8b;
            }
            let gzip = end - start >= 2 && buf[start] == 0x1f && buf[start + 1] == 0x8b;
            let zlib = format == Format::Zlib && report.members == 0;
            if format == Format::Gzip && report.members > 0 && follower(&buf[start..end]) {
                // A member of another format after gzip members: gzip goes on with it.
                report.handoff = Some(buf[start..end].to_vec());
                break;
            }
            if !(gzip && format == Format::Gzip || zlib) {
                if report.members == 0 && !copy_plain {
                    // One byte in all: too short to tell, gzip's "unexpected end of file".
                    if eof && end - start == 1 {
                        return Err(CodecError::Truncated {
                            offset: consumed_total + 1,
                        });
                    }
                    return Err(CodecError::NotGzip);
                }
                // gzip reads the next member's two magic bytes, and one byte that is not zero
                // (zeros are padding) ends its input too early: "unexpected end of file", an
                // error. Two or more are trailing garbage. (At a member start the buffer holds
                // a header's worth of bytes unless the input has ended.)
                if !copy_plain
                    && format == Format::Gzip
                    && eof
                    && end - start == 1
                    && buf[start] != 0
                {
                    return Err(CodecError::Truncated {
                        offset: consumed_total + 1,
                    });
                }
                // The rest of the input: copied as it is (copy_plain), or checked, since gzip
                // ignores trailing zeros (tape padding) silently and warns on anything else;
                // either way the data decoded so far is complete and valid.
                loop {
                    let rest = &buf[start..end];
                    if copy_plain {
                        w.write_all(rest).map_err(CodecError::Write)?;
                    } else if rest.iter().any(|&b| b != 0) {
                        report.trailing_garbage = true;
                        break;
                    } else {
                        report.trailing_zeros |= !rest.is_empty();
                    }
                    consumed_total += rest.len() as u64;
                    start = end;
                    if eof {
                        break;
                    }
                    if would_wait(eof) {
                        w.flush().map_err(CodecError::Write)?;
                    }
                    refill(&mut buf, &mut start, &mut end, &mut eof, 1)?;
                    if start == end {
                        break;
                    }
                }
                break;
            }
            member_start = false;
            member_at = consumed_total;
        }
        let st = inflater
            .inflate(&buf[start..end], &mut out)
            .map_err(|error| CodecError::Corrupt {
                offset: member_at + error.offset,
                error,
            })?;
        start += st.consumed;
        consumed_total += st.consumed as u64;
        w.write_all(&out[..st.produced])
            .map_err(CodecError::Write)?;
        match st.state {
            StreamState::StreamEnd => {
                if report.members == 0 {
                    report.header = inflater.gzip_header().cloned();
                }
                report.members += 1;
                report.last_member_out = inflater.total_out();
                inflater.reset();
                member_start = true;
            }
            // Only a zlib stream may ask for one, and the detection leaves those out.
            StreamState::NeedDictionary(id) => {
                let offset = member_at + inflater.total_in();
                let error = InflateError {
                    kind: ErrorKind::DictionaryRequired(id),
                    offset,
                };
                return Err(CodecError::Corrupt { error, offset });
            }
            StreamState::Progress => {
                if st.consumed == 0 && st.produced == 0 {
                    if eof {
                        return Err(CodecError::Truncated {
                            offset: consumed_total + (end - start) as u64,
                        });
                    }
                    // What is decoded goes out before a read that would wait.
                    if would_wait(eof) {
                        w.flush().map_err(CodecError::Write)?;
                    }
                    let more = end - start + 1;
                    refill(&mut buf, &mut start, &mut end, &mut eof, more)?;
                }
            }
        }
    }
    w.flush().map_err(CodecError::Write)?;
    report.counts = Counts {
        bytes_in: consumed_total,
        bytes_out: w.count,
    };
    Ok(report)
}
