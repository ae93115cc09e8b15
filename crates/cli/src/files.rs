//! File handling with gzip's rules and one guarantee gzip users rely on: nothing is lost.
//!
//! Output goes to a hidden temporary file (mode 0600) in the destination directory and is moved
//! into place only after the whole stream was written and flushed; the input is removed only
//! after that, and only if it did not change while it was read. On any error the temporary
//! file is removed and the input is left as it was. An existing output is never replaced
//! without `-f`, also one that appears while the work runs (the move is a hard link, which
//! fails on an existing name). As in gzip, only regular files are replaced by their output,
//! and set-ID, sticky and hard-linked files are left alone (the last two unless `-f`).

use crate::args::{Mode, Options};
use crate::codec::{self, CodecError, CompressSpec, Counts};
use crate::pipe;
use crate::progress::Progress;
use crate::report::{Reporter, Severity};
use hyperz_device::{Device, DeviceConfig};
use hyperz_engine::GzipHeader;
use std::fs::{self, File};
use std::io::{self, IsTerminal, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Output buffer: small writes (headers, short members) are gathered; the codec's own chunks
/// (`codec::IO_CHUNK`, larger than this) go straight to the file or pipe without a copy.
const OUT_BUF: usize = 64 * 1024;

/// Suffixes recognised when decompressing, besides the user's `-S` suffix, with what replaces
/// them (gzip's list).
const KNOWN_SUFFIXES: &[(&str, &str)] = &[
    (".gz", ""),
    ("-gz", ""),
    (".z", ""),
    ("-z", ""),
    ("_z", ""),
    (".tgz", ".tar"),
    (".taz", ".tar"),
];

/// Processes every operand (or stdin), reporting through `rep`.
pub fn run(opts: &Options, rep: &mut Reporter) {
    if opts.files.is_empty() {
        stdin_to_stdout(opts, rep);
        return;
    }
    for f in &opts.files {
        if f == "-" {
            stdin_to_stdout(opts, rep);
        } else {
            path_operand(Path::new(f), opts, rep);
        }
    }
    if opts.mode == Mode::List {
        crate::list::print_totals(opts, rep);
    }
}

/// Whether reading `stdin` may wait on a writer (a pipe, a socket, a terminal) rather than
/// only on a disk.
fn may_wait(stdin: &io::Stdin) -> bool {
    use std::os::fd::AsFd;
    stdin
        .as_fd()
        .try_clone_to_owned()
        .map(File::from)
        .and_then(|f| f.metadata())
        .map_or(true, |m| !m.is_file())
}

fn stdin_to_stdout(opts: &Options, rep: &mut Reporter) {
    let stdin = io::stdin();
    let stdout = io::stdout();
    match opts.mode {
        Mode::Compress if stdout.is_terminal() && !opts.force => {
            rep.msg(
                Severity::Error,
                "compressed data not written to a terminal. Use -f to force compression.\n\
                 For help, type: hyperz -h",
            );
            return;
        }
        Mode::Decompress | Mode::Test | Mode::List if stdin.is_terminal() && !opts.force => {
            rep.msg(
                Severity::Error,
                "compressed data not read from a terminal. Use -f to force decompression.\n\
                 For help, type: hyperz -h",
            );
            return;
        }
        _ => {}
    }
    let threaded = io_threads(opts);
    let may_wait = may_wait(&stdin);
    let (mut input, ready) = pipe::reader(stdin, threaded);
    let wait = may_wait.then_some(&*ready);
    let mut out = pipe::Output::new(stdout, threaded, OUT_BUF);
    let progress = Progress::none();
    match opts.mode {
        Mode::Compress => {
            // A zip entry needs a name: pigz's -A gives one (else "-").
            let header = GzipHeader {
                name: opts.alias.clone().filter(|_| opts.zip),
                ..GzipHeader::default()
            };
            let spec = spec_for(opts, header);
            if let Err(e) = codec::compress(&mut input, &mut out, &spec, device(opts), &progress) {
                rep.file_error("stdin", &e);
            }
        }
        Mode::Decompress | Mode::Test => {
            let mut sink = io::sink();
            let w: &mut dyn Write = if opts.mode == Mode::Test {
                &mut sink
            } else {
                &mut out
            };
            // Standard input always goes to standard output: -f alone passes plain data.
            let r = codec::decompress(
                &mut input,
                w,
                &progress,
                opts.force,
                Some(device(opts)),
                wait,
            );
            match r.and_then(|r| {
                out.finish().map_err(CodecError::Write)?;
                Ok(r)
            }) {
                Ok(r) => {
                    if let Some(w) = trailing_warning(&r, opts) {
                        rep.file_warning("stdin", w);
                    }
                }
                Err(e) => rep.file_error("stdin", &e),
            }
        }
        Mode::List => crate::list::list_stream("stdin", &mut input, opts, rep),
    }
}

fn path_operand(path: &Path, opts: &Options, rep: &mut Reporter) {
    let name = path.display().to_string();
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) => return rep.io_error(&name, &e),
    };
    if meta.is_dir() {
        if !opts.recursive {
            return rep.msg(
                Severity::Warning,
                &format!("{name} is a directory -- ignored"),
            );
        }
        let mut entries: Vec<PathBuf> = match fs::read_dir(path) {
            Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) => return rep.io_error(&name, &e),
        };
        entries.sort();
        for e in entries {
            path_operand(&e, opts, rep);
        }
        return;
    }
    // gzip opens operands without following a symbolic link unless it only reads them (-c,
    // -t, -l) or -f is given, named or found by -r alike.
    if meta.file_type().is_symlink()
        && !opts.force
        && !opts.stdout
        && matches!(opts.mode, Mode::Compress | Mode::Decompress)
    {
        return rep.msg(
            Severity::Error,
            &format!("{name}: Too many levels of symbolic links"),
        );
    }
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) => return rep.io_error(&name, &e),
    };
    // Only a regular file is replaced by its output: -f does not widen that (it used to, and
    // `hyperz -f /dev/null` deleted the device node); reading one to stdout or testing it is
    // fine, as in gzip.
    if !(meta.is_file() || opts.stdout || matches!(opts.mode, Mode::Test | Mode::List)) {
        return rep.msg(
            Severity::Warning,
            &format!("{name} is not a directory or a regular file - ignored"),
        );
    }
    match opts.mode {
        Mode::Compress => compress_file(path, &meta, opts, rep),
        Mode::Decompress | Mode::Test => decompress_file(path, &meta, opts, rep),
        Mode::List if skip_unknown_suffix(&file_name(path), &name, opts, rep) => {}
        Mode::List => match File::open(path) {
            Ok(mut f) => crate::list::list_file(&name, &mut f, opts, rep),
            Err(e) => rep.io_error(&name, &e),
        },
    }
}

/// gzip's warning about bytes after the last member: garbage always, zeros (tape padding)
/// only with -v; and about the entries of a zip archive after the first.
pub(crate) fn trailing_warning(r: &codec::DecodeReport, opts: &Options) -> Option<&'static str> {
    if r.more_entries {
        Some("has more than one entry--rest ignored")
    } else if r.trailing_garbage {
        Some("decompression OK, trailing garbage ignored")
    } else if r.trailing_zeros && opts.verbose > 0 {
        Some("decompression OK, trailing zero bytes ignored")
    } else {
        None
    }
}

/// Whether input that is not gzip passes through unchanged: gzip's `-f` when the output is
/// stdout or nothing (`-c`, `-t`).
fn copy_plain(opts: &Options) -> bool {
    opts.force && (opts.stdout || opts.mode == Mode::Test)
}

fn spec_for(opts: &Options, mut header: GzipHeader) -> CompressSpec {
    header.comment = opts.comment.clone();
    CompressSpec {
        level: opts.level,
        strategy: opts.strategy,
        independent: opts.independent,
        zlib: opts.zlib,
        zip: opts.zip,
        rsyncable: opts.rsyncable,
        header,
    }
}

/// The device runtime for this run: `-p` engines, `--verify` as asked.
fn device(opts: &Options) -> &'static Device {
    static DEV: std::sync::OnceLock<Device> = std::sync::OnceLock::new();
    DEV.get_or_init(|| new_device(opts, opts.processes()))
}

/// Regular files shorter than this go to a device of one engine ([`device_for`]).
const PARALLEL_MIN: u64 = 64 << 10;

/// The device for the input `meta` describes: [`device`], or for a regular file shorter than
/// [`PARALLEL_MIN`] one of a single engine. Its output is the same (the bytes never depend on
/// the engine count), and only the second needs the core count ([`Options::processes`]). A
/// file that short gains at most a tenth of a millisecond from more engines: 64 KiB of
/// compressed input decodes in about 0.2 ms on one core, and compresses as one block at
/// the default block size.
fn device_for(opts: &Options, meta: &fs::Metadata) -> &'static Device {
    static ONE: std::sync::OnceLock<Device> = std::sync::OnceLock::new();
    if meta.is_file() && meta.len() < PARALLEL_MIN {
        ONE.get_or_init(|| new_device(opts, 1))
    } else {
        device(opts)
    }
}

/// A device of `engines` engines, with `--verify` and `-b` as asked.
fn new_device(opts: &Options, engines: usize) -> Device {
    let mut cfg = DeviceConfig::with_engines(engines);
    cfg.verify = opts.verify;
    if let Some(b) = opts.block_size {
        cfg.block_size = b;
    }
    Device::new(cfg)
}

/// A file's modification time in seconds since the epoch, as gzip stores it.
pub(crate) fn mtime_secs(meta: &fs::Metadata) -> u32 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs().min(u32::MAX as u64) as u32)
}

fn compress_file(path: &Path, meta: &fs::Metadata, opts: &Options, rep: &mut Reporter) {
    let name = path.display().to_string();
    let fname = file_name(path);
    if let Some(suffix) = compressed_suffix(&fname, opts).filter(|_| !opts.stdout && !opts.force) {
        // gzip says so unless -r is given (or -v), without a warning status; -f compresses
        // them all the same.
        if !opts.recursive || opts.verbose > 0 {
            rep.note(&format!("{name} already has {suffix} suffix -- unchanged"));
        }
        return;
    }
    // XFL is left 0 so the writer fills in zlib's value for the level.
    let mut header = GzipHeader::default();
    if opts.name != Some(false) {
        header.name = Some(fname.clone().into_bytes());
    }
    if opts.time.unwrap_or(opts.name != Some(false)) {
        header.mtime = mtime_secs(meta);
    }
    let spec = spec_for(opts, header);
    let target = if opts.stdout {
        None
    } else {
        let mut t = path.as_os_str().to_owned();
        t.push(&opts.suffix);
        Some(PathBuf::from(t))
    };
    let label = fname.clone();
    let result = with_output(path, target.as_deref(), meta, opts, rep, |input, out| {
        let progress = Progress::new(Some(meta.len()), &label, opts.quiet > 0);
        codec::compress(input, out, &spec, device_for(opts, meta), &progress)
    });
    if let Some(counts) = result {
        if opts.verbose > 0 {
            let pct = ratio_percent(counts.bytes_out, counts.bytes_in);
            let what = match &target {
                Some(t) if !opts.keep => format!(" -- replaced with {}", t.display()),
                Some(t) => format!(" -- created {}", t.display()),
                None => String::new(),
            };
            eprintln!("{name}:\t{pct:5.1}%{what}");
        }
    }
}

/// The suffix of a name that looks compressed already, as the name spells it: the `-S` suffix
/// or one of gzip's (`.gz`, `.tgz`, `_z`, ..., any case), after at least one character.
fn compressed_suffix<'a>(fname: &'a str, opts: &Options) -> Option<&'a str> {
    let lower = fname.to_ascii_lowercase();
    std::iter::once(opts.suffix.to_ascii_lowercase())
        .chain(KNOWN_SUFFIXES.iter().map(|(s, _)| s.to_string()))
        .find(|s| !s.is_empty() && lower.len() > s.len() && lower.ends_with(s.as_str()))
        .map(|s| &fname[fname.len() - s.len()..])
}

/// The last component of `path`, lossily as text.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Whether gzip passes over this file for want of a compressed suffix: when decompressing to a
/// file, and with -t or -l under -r (which then behave as -dr). It says so unless -r is given
/// (or -v), and that is a warning.
fn skip_unknown_suffix(fname: &str, name: &str, opts: &Options, rep: &mut Reporter) -> bool {
    let checked = match opts.mode {
        Mode::Decompress => !opts.stdout,
        Mode::Test | Mode::List => opts.recursive,
        Mode::Compress => false,
    };
    if !checked || strip_suffix(fname, opts).is_some() {
        return false;
    }
    if !opts.recursive || opts.verbose > 0 {
        rep.msg(
            Severity::Warning,
            &format!("{name}: unknown suffix -- ignored"),
        );
    }
    true
}

/// The output name for a compressed input, or None if its suffix is unknown.
fn strip_suffix(fname: &str, opts: &Options) -> Option<String> {
    if !opts.suffix.is_empty() && fname.len() > opts.suffix.len() && fname.ends_with(&opts.suffix) {
        return Some(fname[..fname.len() - opts.suffix.len()].to_string());
    }
    let lower = fname.to_ascii_lowercase();
    // pigz's zlib files (.zz) too.
    KNOWN_SUFFIXES
        .iter()
        .chain(&[(".zz", "")])
        .find_map(|(s, repl)| {
            (lower.len() > s.len() && lower.ends_with(s))
                .then(|| format!("{}{repl}", &fname[..fname.len() - s.len()]))
        })
}

fn decompress_file(path: &Path, meta: &fs::Metadata, opts: &Options, rep: &mut Reporter) {
    let name = path.display().to_string();
    let fname = file_name(path);
    let test = opts.mode == Mode::Test;
    if skip_unknown_suffix(&fname, &name, opts, rep) {
        return;
    }
    let target = if opts.stdout || test {
        None
    } else {
        strip_suffix(&fname, opts).map(|stem| path.with_file_name(stem))
    };
    // With -N the stored name decides the output name, so the header is read first.
    let target = match (target, opts.name == Some(true)) {
        (Some(t), true) => match stored_name(path) {
            Some(stored) => Some(path.with_file_name(stored)),
            None => Some(t),
        },
        (t, _) => t,
    };
    let mut report = None;
    let label = fname.clone();
    let result = with_output(path, target.as_deref(), meta, opts, rep, |input, out| {
        let progress = Progress::new(Some(meta.len()), &label, opts.quiet > 0);
        let mut sink = io::sink();
        let w: &mut dyn Write = if test { &mut sink } else { out };
        // A named FIFO (read with -c) may wait on its writer as a pipe does.
        let never: &dyn Fn() -> bool = &pipe::never_ready;
        let wait = (!meta.is_file()).then_some(never);
        let dev = Some(device_for(opts, meta));
        let r = codec::decompress(input, w, &progress, copy_plain(opts), dev, wait)?;
        let counts = r.counts;
        report = Some(r);
        Ok(Counts {
            bytes_in: counts.bytes_out,
            bytes_out: counts.bytes_in,
        })
    });
    let Some(counts) = result else { return };
    let report = report.expect("set on success");
    if let Some(w) = trailing_warning(&report, opts) {
        rep.file_warning(&name, w);
    }
    if opts.time.unwrap_or(opts.name == Some(true)) {
        if let (Some(t), Some(h)) = (&target, &report.header) {
            if h.mtime != 0 {
                let ft = filetime::FileTime::from_unix_time(h.mtime as i64, 0);
                let _ = filetime::set_file_mtime(t, ft);
            }
        }
    }
    if opts.verbose > 0 {
        if test {
            eprintln!("{name}:\t OK");
        } else {
            let pct = ratio_percent(counts.bytes_out, counts.bytes_in);
            let what = match &target {
                Some(t) if !opts.keep => format!(" -- replaced with {}", t.display()),
                Some(t) => format!(" -- created {}", t.display()),
                None => String::new(),
            };
            eprintln!("{name}:\t{pct:5.1}%{what}");
        }
    }
}

/// The file name stored in a gzip header (FNAME), reduced to its last path component so a
/// hostile archive cannot write outside the input's directory.
fn stored_name(path: &Path) -> Option<String> {
    let mut head = vec![0u8; 64 * 1024];
    let n = File::open(path).ok()?.read(&mut head).ok()?;
    let raw = String::from_utf8_lossy(crate::list::stored_name(&head[..n])?).into_owned();
    let base = raw.rsplit(['/', '\\']).next()?.to_string();
    (!base.is_empty() && base != "." && base != "..").then_some(base)
}

/// Percentage saved, as gzip prints it.
pub fn ratio_percent(compressed: u64, uncompressed: u64) -> f64 {
    if uncompressed == 0 {
        0.0
    } else {
        100.0 * (1.0 - compressed as f64 / uncompressed as f64)
    }
}

/// Whether reads and writes run on helper threads beside the work (`pipe.rs`): when
/// decompressing or testing with more than one thread allowed. (Compression's engines keep
/// every core busy already.)
fn io_threads(opts: &Options) -> bool {
    matches!(opts.mode, Mode::Decompress | Mode::Test) && opts.processes() > 1
}

/// Regular files shorter than this are decompressed without the helper threads: starting
/// them (their stacks, their buffers, each thread's allocator arena) costs more than the
/// overlap returns on short files. `hyperz -d -c` to a file, best of three, alone / with them:
/// 4 MB out (1.0 MB in) 8.8 / 9.3 ms, 12 MB (3.4 MB in) 19.9 / 19.6, 30 MB (8.5 MB in) 43.9 /
/// 44.3, 88 MB (24 MB in) 128 / 113; a 3.7 KB file 1.45 / 2.0 ms per run, most of it process
/// start (gzip: 0.87). Pipes and other inputs of unknown length keep them.
const IO_THREADS_MIN: u64 = 4 << 20;

/// [`io_threads`] for the input `meta` describes.
fn io_threads_for(opts: &Options, meta: &fs::Metadata) -> bool {
    !(meta.is_file() && meta.len() < IO_THREADS_MIN) && io_threads(opts)
}

/// Runs `work` from `path` into `target` (a file written safely) or stdout, applying the
/// no-data-loss rules. Returns the counts on success; reports and returns None on failure.
fn with_output(
    path: &Path,
    target: Option<&Path>,
    meta: &fs::Metadata,
    opts: &Options,
    rep: &mut Reporter,
    work: impl FnOnce(&mut dyn Read, &mut dyn Write) -> Result<Counts, CodecError>,
) -> Option<Counts> {
    let name = path.display().to_string();
    let threaded = io_threads_for(opts, meta);
    let mut input = match File::open(path) {
        Ok(f) => pipe::reader(f, threaded).0,
        Err(e) => {
            rep.io_error(&name, &e);
            return None;
        }
    };
    let Some(target) = target else {
        if opts.mode == Mode::Compress && io::stdout().is_terminal() && !opts.force {
            rep.msg(
                Severity::Error,
                "compressed data not written to a terminal. Use -f to force compression.",
            );
            return None;
        }
        let mut out = pipe::Output::new(io::stdout(), threaded, OUT_BUF);
        let r = work(&mut input, &mut out).and_then(|c| {
            out.finish().map_err(CodecError::Write)?;
            Ok(c)
        });
        return match r {
            Ok(c) => Some(c),
            Err(e) => {
                rep.file_error(&name, &e);
                None
            }
        };
    };
    let tname = target.display().to_string();
    if let Some(why) = refused_input(&name, meta, opts) {
        rep.msg(Severity::Warning, &why);
        return None;
    }
    if fs::metadata(target).is_ok_and(|t| t.dev() == meta.dev() && t.ino() == meta.ino()) {
        // A stored name (-N) or a link that leads back to the input: writing would replace
        // the input, and removing the input would then remove the output.
        rep.msg(
            Severity::Error,
            &format!("{tname}: the output would replace its own input -- not written"),
        );
        return None;
    }
    if target.exists() && !opts.force {
        rep.msg(
            Severity::Warning,
            &format!("{tname} already exists;\tnot overwritten"),
        );
        return None;
    }
    let tmp = temp_path(target);
    crate::cleanup::register(&tmp);
    let result = write_and_publish(
        path, target, &tmp, meta, opts, rep, &mut input, threaded, work,
    );
    crate::cleanup::unregister(&tmp);
    result
}

/// [`with_output`]'s file case: `work` into the temporary file `tmp`, then moved to `target`.
#[allow(clippy::too_many_arguments)]
fn write_and_publish(
    path: &Path,
    target: &Path,
    tmp: &Path,
    meta: &fs::Metadata,
    opts: &Options,
    rep: &mut Reporter,
    input: &mut dyn Read,
    threaded: bool,
    work: impl FnOnce(&mut dyn Read, &mut dyn Write) -> Result<Counts, CodecError>,
) -> Option<Counts> {
    let name = path.display().to_string();
    let tname = target.display().to_string();
    // Readable by the owner only until it is complete (it holds the input's data, and the
    // input may be private); its mode is the input's once it is.
    let file = match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(tmp)
    {
        Ok(f) => f,
        Err(e) => {
            rep.io_error(&tname, &e);
            return None;
        }
    };
    let mut out = pipe::Output::new(file, threaded, OUT_BUF);
    let result = work(input, &mut out).and_then(|c| {
        let file = out.finish().map_err(CodecError::Write)?;
        file.sync_all().map_err(CodecError::Write)?;
        Ok((c, file))
    });
    let (counts, file) = match result {
        Ok(v) => v,
        Err(e) => {
            let _ = fs::remove_file(tmp);
            match &e {
                CodecError::Write(_) => rep.file_error(&tname, &e),
                _ => rep.file_error(&name, &e),
            }
            return None;
        }
    };
    // Carry over owner, permissions and timestamps as gzip does: the owner first (where it
    // is allowed: as root), then the permission bits alone, never set-user-ID, set-group-ID
    // or sticky (a setuid file decompressed by root would otherwise be a setuid-root one).
    let _ = std::os::unix::fs::fchown(&file, Some(meta.uid()), Some(meta.gid()));
    let _ = file.set_permissions(fs::Permissions::from_mode(meta.mode() & 0o777));
    let _ = filetime::set_file_handle_times(
        &file,
        Some(filetime::FileTime::from_last_access_time(meta)),
        Some(filetime::FileTime::from_last_modification_time(meta)),
    );
    drop(file);
    if let Err(e) = publish(tmp, target, opts.force) {
        let _ = fs::remove_file(tmp);
        if e.kind() == io::ErrorKind::AlreadyExists {
            // Created by someone else while this run worked.
            rep.msg(
                Severity::Warning,
                &format!("{tname} already exists;\tnot overwritten"),
            );
        } else {
            rep.io_error(&tname, &e);
        }
        return None;
    }
    // Data written to the input while it was read may not be in the output: the input stays.
    let changed = fs::metadata(path).map_or(true, |m| {
        m.len() != meta.len() || m.modified().ok() != meta.modified().ok()
    });
    if changed {
        rep.msg(
            Severity::Warning,
            &format!("{name}: file changed while it was read -- kept"),
        );
    } else if !opts.keep {
        // The output is complete: like gzip, a warning (exit 2), not an error.
        if let Err(e) = fs::remove_file(path) {
            rep.io_warning(&name, &e);
        }
    }
    Some(counts)
}

/// gzip's reasons to leave an input alone when its output goes to a file: set-user-ID or
/// set-group-ID (even with -f), the sticky bit or other hard links (unless -f).
fn refused_input(name: &str, meta: &fs::Metadata, opts: &Options) -> Option<String> {
    let mode = meta.mode();
    if mode & 0o4000 != 0 {
        return Some(format!("{name} is set-user-ID on execution - ignored"));
    }
    if mode & 0o2000 != 0 {
        return Some(format!("{name} is set-group-ID on execution - ignored"));
    }
    if opts.force {
        return None;
    }
    if mode & 0o1000 != 0 {
        return Some(format!("{name} has the sticky bit set - file ignored"));
    }
    let others = meta.nlink().saturating_sub(1);
    (others > 0).then(|| {
        let s = if others > 1 { "s" } else { "" };
        format!("{name} has {others} other link{s} -- file ignored")
    })
}

/// Moves the finished `tmp` to `target`. Without `force`, never over a file that appeared
/// there meanwhile: a hard link fails if the name exists (the check before the work and the
/// rename after it left a gap). On a file system without hard links, the check and rename.
fn publish(tmp: &Path, target: &Path, force: bool) -> io::Result<()> {
    if force {
        return fs::rename(tmp, target);
    }
    match fs::hard_link(tmp, target) {
        Ok(()) => {
            let _ = fs::remove_file(tmp);
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
        Err(_) if target.exists() => Err(io::ErrorKind::AlreadyExists.into()),
        Err(_) => fs::rename(tmp, target),
    }
}

/// A hidden sibling of `target` that no other run picks.
fn temp_path(target: &Path) -> PathBuf {
    let base = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{base}.hyperz-tmp-{}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> Options {
        match crate::args::parse(["hyperz"].map(Into::into)).unwrap() {
            crate::args::Parsed::Run(o) => o,
            _ => unreachable!(),
        }
    }

    #[test]
    fn suffixes_map_like_gzip() {
        let o = opts();
        assert_eq!(strip_suffix("a.gz", &o).as_deref(), Some("a"));
        assert_eq!(strip_suffix("a.GZ", &o).as_deref(), Some("a"));
        assert_eq!(strip_suffix("a.tgz", &o).as_deref(), Some("a.tar"));
        assert_eq!(strip_suffix("a-z", &o).as_deref(), Some("a"));
        assert_eq!(strip_suffix("a.txt", &o), None);
        assert_eq!(strip_suffix(".gz", &o), None);
    }
}
