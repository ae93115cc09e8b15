//! `-l`: sizes and ratio of gzip files, as GNU gzip 1.12 shows them. A file is decompressed
//! first: one that is truncated or damaged is an error and one with trailing garbage a
//! warning, and neither gets a row. The uncompressed size is the last member's, as decoded:
//! its trailer's ISIZE holds only its value modulo 2^32, which gzip before 1.12 showed (a
//! 4.6 GB file as 356 MB at -317.6%). The CRC and the time come from the trailer and header.

use crate::args::Options;
use crate::codec::{self, OLD_GZIP_MAGIC};
use crate::progress::Progress;
use crate::report::{Reporter, Severity};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

/// Prints the column titles, before the first row.
fn print_header(opts: &Options, rep: &mut Reporter) {
    if rep.list_header {
        return;
    }
    rep.list_header = true;
    if opts.verbose > 0 {
        print!("method  crc     date  time  ");
    }
    println!("         compressed        uncompressed  ratio uncompressed_name");
}

/// Prints the totals line when more than one file was listed, or named (as gzip does).
pub fn print_totals(opts: &Options, rep: &Reporter) {
    let (files, comp, uncomp) = rep.list_totals;
    if files == 0 || (files < 2 && opts.files.len() < 2) {
        return;
    }
    if opts.verbose > 0 {
        print!("{:28}", "");
    }
    // gzip leaves out the header and trailer of the last file it listed only (none if that
    // one failed or had several members).
    let ratio = crate::files::ratio_percent(comp.saturating_sub(rep.list_framing), uncomp);
    println!("{comp:>19} {uncomp:>19} {ratio:5.1}% (totals)");
}

/// Length of a gzip member header (fixed part plus optional fields), if `head` starts one.
fn header_len(head: &[u8]) -> Option<usize> {
    let magic = head.starts_with(&[0x1f, 0x8b]) || head.starts_with(&OLD_GZIP_MAGIC);
    if head.len() < 10 || !magic || head[2] != 8 {
        return None;
    }
    let flg = head[3];
    let mut pos = 10;
    if flg & 0x04 != 0 {
        pos += 2 + u16::from_le_bytes([*head.get(10)?, *head.get(11)?]) as usize;
    }
    for bit in [0x08u8, 0x10] {
        if flg & bit != 0 {
            pos += head.get(pos..)?.iter().position(|&b| b == 0)? + 1;
        }
    }
    if flg & 0x02 != 0 {
        pos += 2;
    }
    Some(pos)
}

/// The name a gzip header stores (FNAME), if `head` starts a header with one.
pub(crate) fn stored_name(head: &[u8]) -> Option<&[u8]> {
    header_len(head)?;
    let flg = head[3];
    if flg & 0x08 == 0 {
        return None;
    }
    let mut pos = 10;
    if flg & 0x04 != 0 {
        pos += 2 + u16::from_le_bytes([head[10], head[11]]) as usize;
    }
    let rest = &head[pos..];
    Some(&rest[..rest.iter().position(|&b| b == 0)?])
}

/// Standard input's modification time when it is a regular file (gzip's fstat); 0 for a pipe
/// or a terminal, as gzip shows them.
fn stdin_mtime() -> u32 {
    match std::fs::metadata("/dev/stdin") {
        Ok(m) if m.is_file() => crate::files::mtime_secs(&m),
        _ => 0,
    }
}

/// Lists a file, seeking to its trailer once it decompressed.
pub fn list_file(name: &str, f: &mut File, opts: &Options, rep: &mut Reporter) {
    let Some(decoded) = decoded_members(name, f, opts, rep) else {
        return;
    };
    let result = (|| {
        f.seek(SeekFrom::Start(0))?;
        let meta = f.metadata()?;
        let size = meta.len();
        let mut head = Vec::new();
        f.by_ref().take(64 * 1024).read_to_end(&mut head)?;
        let mut tail = [0u8; 8];
        if size >= 18 {
            f.seek(SeekFrom::Start(size - 8))?;
            f.read_exact(&mut tail)?;
        }
        Ok::<_, std::io::Error>((size, head, tail, crate::files::mtime_secs(&meta)))
    })();
    match result {
        Ok((size, head, tail, mtime)) => {
            let row = Row {
                size,
                head: &head,
                tail: &tail,
                file_mtime: mtime,
                stdin: false,
                decoded,
            };
            print_row(name, &row, opts, rep)
        }
        Err(e) => rep.io_error(name, &e),
    }
}

/// Lists a stream (standard input), decompressing it as it is read through.
pub fn list_stream(name: &str, r: &mut dyn Read, opts: &Options, rep: &mut Reporter) {
    let mut tee = Tee {
        inner: r,
        size: 0,
        head: Vec::new(),
        last: Vec::new(),
    };
    let Some(decoded) = decoded_members(name, &mut tee, opts, rep) else {
        return;
    };
    // Whatever the decoder left unread (nothing, or zeros) still counts, as in a file's size.
    let mut rest = [0u8; 1 << 16];
    loop {
        match tee.read(&mut rest) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => return rep.io_error(name, &e),
        }
    }
    let mut tail = [0u8; 8];
    if tee.last.len() >= 8 {
        tail.copy_from_slice(&tee.last[tee.last.len() - 8..]);
    }
    let row = Row {
        size: tee.size,
        head: &tee.head,
        tail: &tail,
        file_mtime: stdin_mtime(),
        stdin: true,
        decoded,
    };
    print_row(name, &row, opts, rep);
}

/// What decompressing a file told of it.
#[derive(Clone, Copy)]
struct Decoded {
    /// Members in the file: gzip's ratio leaves out the header and trailer of a single one.
    members: u64,
    /// The last member's uncompressed length (a zip archive's first entry's, a compress
    /// file's).
    uncompressed: u64,
    /// For a zip archive or a compress file, the method shown: gzip shows the whole file
    /// against the size, with no CRC (all ones) and the file's time.
    zip: Option<&'static str>,
}

/// Decompresses a file to be listed, as gzip 1.12 does first; what that found, if the file
/// gets a row. Not if it fails (an error) or has bytes after its last member: garbage (a
/// warning) or zeros (a warning with -v only). A file without a row counts as one without
/// framing for the totals (see [`print_totals`]).
fn decoded_members(
    name: &str,
    r: &mut dyn Read,
    opts: &Options,
    rep: &mut Reporter,
) -> Option<Decoded> {
    let listed = match codec::decompress(r, &mut io::sink(), &Progress::none(), false, None, None) {
        Err(e) => {
            rep.file_error(name, &e);
            None
        }
        Ok(r) => {
            if let Some(w) = crate::files::trailing_warning(&r, opts) {
                rep.file_warning(name, w);
            }
            let zip = match (r.zip_method, r.lzw, r.lzh, r.pack) {
                (Some(m), ..) => Some(if m == 0 { "store" } else { "defla" }),
                (None, true, ..) => Some("compr"),
                (None, _, true, _) => Some("lzh  "),
                (None, .., true) => Some("pack "),
                _ => None,
            };
            (!(r.trailing_garbage || r.trailing_zeros)).then_some(Decoded {
                members: r.members,
                uncompressed: r.last_member_out,
                zip,
            })
        }
    };
    if listed.is_none() {
        rep.list_framing = 0;
    }
    listed
}

/// A reader that keeps what `-l` needs of a stream read through once: its size, its first
/// 64 KiB (the header) and its last 8 bytes (the trailer).
struct Tee<'a> {
    inner: &'a mut dyn Read,
    size: u64,
    head: Vec<u8>,
    last: Vec<u8>,
}

impl Read for Tee<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let got = &buf[..n];
        self.size += n as u64;
        let room = (64 * 1024usize).saturating_sub(self.head.len());
        self.head.extend_from_slice(&got[..n.min(room)]);
        self.last.extend_from_slice(&got[n.saturating_sub(8)..]);
        let cut = self.last.len().saturating_sub(8);
        self.last.drain(..cut);
        Ok(n)
    }
}

/// What a row shows of one file.
struct Row<'a> {
    size: u64,
    head: &'a [u8],
    tail: &'a [u8; 8],
    /// The file's modification time (standard input's if it is a regular file, else 0),
    /// which gzip shows unless -N asks for the header's.
    file_mtime: u32,
    /// The file is standard input (shown as "stdout").
    stdin: bool,
    decoded: Decoded,
}

fn print_row(name: &str, row: &Row, opts: &Options, rep: &mut Reporter) {
    let Row {
        size,
        head,
        tail,
        file_mtime,
        stdin,
        decoded,
    } = *row;
    let Decoded {
        members,
        uncompressed: uncomp,
        zip,
    } = decoded;
    let (crc, framing, mtime) = match (zip, header_len(head)) {
        (Some(_), _) => (u64::MAX, 0, 0),
        (None, Some(h)) if size >= h as u64 + 8 => (
            u32::from_le_bytes(tail[..4].try_into().unwrap()) as u64,
            if members == 1 { h as u64 + 8 } else { 0 },
            u32::from_le_bytes(head[4..8].try_into().unwrap()),
        ),
        _ => return rep.msg(Severity::Error, &format!("{name}: not in gzip format")),
    };
    rep.list_framing = framing;
    let ratio = crate::files::ratio_percent(size - framing, uncomp);
    print_header(opts, rep);
    // With -N, the stored name and time, as decompressing with -N would restore them.
    let restore = opts.name == Some(true) && zip.is_none();
    let shown = match stored_name(head).filter(|_| restore) {
        Some(n) => String::from_utf8_lossy(n).into_owned(),
        None if stdin => "stdout".to_string(),
        None => {
            let lower = name.to_ascii_lowercase();
            match [opts.suffix.as_str(), ".gz", ".z", "-gz", "-z", "_z"]
                .iter()
                .find(|s| !s.is_empty() && lower.ends_with(&s.to_ascii_lowercase()))
            {
                Some(s) => name[..name.len() - s.len()].to_string(),
                None => name.to_string(),
            }
        }
    };
    if opts.verbose > 0 {
        let mtime = if restore && mtime != 0 {
            mtime
        } else {
            file_mtime
        };
        let method = zip.unwrap_or("defla");
        print!("{method} {crc:08x} {:>12} ", format_mtime(mtime));
    }
    println!("{size:>19} {uncomp:>19} {ratio:5.1}% {shown}");
    let t = &mut rep.list_totals;
    *t = (t.0 + 1, t.1 + size, t.2 + uncomp);
}

/// "Mon dd hh:mm" in UTC for a gzip MTIME (gzip uses local time; this machine's is UTC).
fn format_mtime(mtime: u32) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let [_, m, d, hh, mm, _] = civil(mtime as i64);
    format!("{} {d:2} {hh:02}:{mm:02}", MONTHS[(m - 1) as usize])
}

/// Year, month (1-12), day, hour, minute and second in UTC of a Unix time (Howard Hinnant's
/// civil-from-days).
pub(crate) fn civil(secs: i64) -> [i64; 6] {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    [y, m, d, rem / 3600, rem % 3600 / 60, rem % 60]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(format_mtime(0), "Jan  1 00:00");
        assert_eq!(format_mtime(1_700_000_000), "Nov 14 22:13");
        assert_eq!(civil(1_700_000_000), [2023, 11, 14, 22, 13, 20]);
        assert_eq!(civil(951_782_400), [2000, 2, 29, 0, 0, 0]);
    }

    #[test]
    fn header_lengths() {
        let mut h = vec![0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3];
        h.extend_from_slice(b"name\0");
        assert_eq!(header_len(&h), Some(15));
        assert_eq!(header_len(b"not gzip at all"), None);
    }
}
