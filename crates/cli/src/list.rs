//! `-l`: sizes and ratio of gzip files, read from the header and the trailer as gzip does
//! (the uncompressed size is the last member's ISIZE, modulo 2^32). As GNU gzip 1.12 does, a
//! file is decompressed first: one that is truncated or damaged is an error and one with
//! trailing garbage a warning, and neither gets a row (gzip would show sizes read from
//! whatever its last eight bytes are).

use crate::args::Options;
use crate::codec;
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
        print!("{:30}", "");
    }
    // gzip leaves out the header and trailer of the last file it listed only (none if that
    // one failed or had several members).
    let ratio = crate::files::ratio_percent(comp.saturating_sub(rep.list_framing), uncomp);
    println!("{comp:>19} {uncomp:>19} {ratio:5.1}% (totals)");
}

/// Length of a gzip member header (fixed part plus optional fields), if `head` starts one.
fn header_len(head: &[u8]) -> Option<usize> {
    if head.len() < 10 || head[0] != 0x1f || head[1] != 0x8b || head[2] != 8 {
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

/// Lists a file, seeking to its trailer once it decompressed.
pub fn list_file(name: &str, f: &mut File, opts: &Options, rep: &mut Reporter) {
    let Some(members) = decoded_members(name, f, opts, rep) else {
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
                file_mtime: Some(mtime),
                members,
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
    let Some(members) = decoded_members(name, &mut tee, opts, rep) else {
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
        file_mtime: None,
        members,
    };
    print_row(name, &row, opts, rep);
}

/// Decompresses a file to be listed, as gzip 1.12 does first; its member count if it gets a
/// row. Not if it fails (an error) or has bytes after its last member: garbage (a warning) or
/// zeros (a warning with -v only). A file without a row counts as one without framing for
/// the totals (see [`print_totals`]).
fn decoded_members(
    name: &str,
    r: &mut dyn Read,
    opts: &Options,
    rep: &mut Reporter,
) -> Option<u64> {
    let listed = match codec::decompress(r, &mut io::sink(), &Progress::none(), false) {
        Err(e) => {
            rep.file_error(name, &e);
            None
        }
        Ok(r) => {
            if let Some(w) = crate::files::trailing_warning(&r, opts) {
                rep.file_warning(name, w);
            }
            (!(r.trailing_garbage || r.trailing_zeros)).then_some(r.members)
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
    /// The file's modification time (None for standard input), which gzip shows when the
    /// header has no MTIME.
    file_mtime: Option<u32>,
    /// Members in the file: gzip's ratio leaves out the header and trailer of a single one.
    members: u64,
}

fn print_row(name: &str, row: &Row, opts: &Options, rep: &mut Reporter) {
    let Row {
        size,
        head,
        tail,
        file_mtime,
        members,
    } = *row;
    let hlen = match header_len(head) {
        Some(h) if size >= h as u64 + 8 => h,
        _ => return rep.msg(Severity::Error, &format!("{name}: not in gzip format")),
    };
    let crc = u32::from_le_bytes(tail[..4].try_into().unwrap());
    let isize = u32::from_le_bytes(tail[4..].try_into().unwrap()) as u64;
    let framing = if members == 1 { hlen as u64 + 8 } else { 0 };
    rep.list_framing = framing;
    let ratio = crate::files::ratio_percent(size - framing, isize);
    print_header(opts, rep);
    let shown = if file_mtime.is_none() {
        "stdout".to_string()
    } else {
        let lower = name.to_ascii_lowercase();
        match [opts.suffix.as_str(), ".gz", ".z", "-gz", "-z", "_z"]
            .iter()
            .find(|s| !s.is_empty() && lower.ends_with(&s.to_ascii_lowercase()))
        {
            Some(s) => name[..name.len() - s.len()].to_string(),
            None => name.to_string(),
        }
    };
    if opts.verbose > 0 {
        let mtime = match u32::from_le_bytes(head[4..8].try_into().unwrap()) {
            0 => file_mtime.unwrap_or(0),
            t => t,
        };
        print!("defla {crc:08x} {:>12} ", format_mtime(mtime));
    }
    println!("{size:>19} {isize:>19} {ratio:5.1}% {shown}");
    let t = &mut rep.list_totals;
    *t = (t.0 + 1, t.1 + size, t.2 + isize);
}

/// "Mon dd hh:mm" in UTC for a gzip MTIME (gzip uses local time; this machine's is UTC).
fn format_mtime(mtime: u32) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = mtime as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    format!(
        "{} {:2} {:02}:{:02}",
        MONTHS[(m - 1) as usize],
        d,
        rem / 3600,
        (rem % 3600) / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(format_mtime(0), "Jan  1 00:00");
        assert_eq!(format_mtime(1_700_000_000), "Nov 14 22:13");
    }

    #[test]
    fn header_lengths() {
        let mut h = vec![0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3];
        h.extend_from_slice(b"name\0");
        assert_eq!(header_len(&h), Some(15));
        assert_eq!(header_len(b"not gzip at all"), None);
    }
}
