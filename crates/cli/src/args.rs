//! Command-line parsing: gzip/pigz-compatible options into one [`Options`] value.
//!
//! gzip lets the level digits ride in any short-option cluster (`-9c`, `-dc1`), and the last one
//! wins. clap cannot express that, so [`normalize`] first rewrites the digits of a cluster into
//! `--level` options at the same position; clap then parses the rest, and the last `--level`
//! wins as gzip's last digit does. Consecutive digits are one level, as pigz and libdeflate's
//! gzip read them: `-12` is level 12 (GNU gzip would take it as `-1 -2`, level 2), and `-13`
//! is an error rather than a silent level 3.

use clap::{ArgAction, Parser};
use hyperz_device::Strategy;
use std::ffi::OsString;

/// Most engines `-p` may ask for.
pub const MAX_PROCESSES: usize = 1024;
/// Longest `-S` suffix (gzip's MAX_SUFFIX).
const MAX_SUFFIX: usize = 30;

/// gzip-compatible compression and decompression on every core.
#[derive(Parser, Debug)]
#[command(
    name = "hyperz",
    version,
    about,
    disable_version_flag = true,
    args_override_self = true
)]
struct Cli {
    /// Write to standard output and keep the input files.
    #[arg(short = 'c', long = "stdout", alias = "to-stdout")]
    stdout: bool,
    /// Decompress.
    #[arg(short = 'd', long = "decompress", alias = "uncompress")]
    decompress: bool,
    /// Overwrite existing output files; compress links and terminals.
    #[arg(short = 'f', long)]
    force: bool,
    /// Keep (do not delete) the input files.
    #[arg(short = 'k', long)]
    keep: bool,
    /// List the compressed size, uncompressed size, ratio and name of each file.
    #[arg(short = 'l', long)]
    list: bool,
    /// Do not save or restore the original name and timestamp.
    #[arg(short = 'n', long = "no-name")]
    no_name: bool,
    /// Save or restore the original name and timestamp.
    #[arg(short = 'N', long = "name")]
    name: bool,
    /// Suppress all warnings.
    #[arg(short = 'q', long, alias = "silent", action = ArgAction::Count)]
    quiet: u8,
    /// Operate recursively on directories.
    #[arg(short = 'r', long)]
    recursive: bool,
    /// Use suffix SUF on compressed files (default .gz).
    #[arg(short = 'S', long = "suffix", value_name = "SUF")]
    suffix: Option<String>,
    /// Test the integrity of compressed files.
    #[arg(short = 't', long)]
    test: bool,
    /// Report the name and reduction of each file.
    #[arg(short = 'v', long, action = ArgAction::Count)]
    verbose: u8,
    /// Compression level 0-12 (0 = store, 1-3 fast, 4-9 default tiers, 10-12 near-optimal).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=12))]
    level: Vec<u32>,
    /// Compress fastest (same as -1).
    #[arg(long)]
    fast: bool,
    /// Compress best among gzip's levels (same as -9).
    #[arg(long)]
    best: bool,
    /// Number of engines (threads) to use; default: all cores.
    #[arg(short = 'p', long = "processes", value_name = "N")]
    processes: Option<usize>,
    /// Compress with Huffman codes only, no matches (pigz; the last of -H and -U counts).
    #[arg(short = 'H', long = "huffman", overrides_with = "rle")]
    huffman: bool,
    /// Compress with run-length matches only, distance one (pigz).
    #[arg(short = 'U', long = "rle", overrides_with = "huffman")]
    rle: bool,
    /// Write independent members that can be decompressed in parallel and seeked.
    #[arg(short = 'i', long)]
    independent: bool,
    /// Compress to a zlib stream (suffix .zz) instead of gzip (pigz).
    #[arg(short = 'z', long = "zlib", conflicts_with = "independent")]
    zlib: bool,
    /// Compress to a zip archive of one entry (suffix .zip) instead of gzip (pigz).
    #[arg(short = 'K', long = "zip", conflicts_with_all = ["independent", "zlib"])]
    zip: bool,
    /// The name of a --zip entry from standard input (pigz; default "-").
    #[arg(short = 'A', long = "alias", value_name = "NAME")]
    alias: Option<OsString>,
    /// End blocks where the content says (rsync-friendly output): an insertion or deletion
    /// changes the compressed file only up to the next boundaries after it.
    #[arg(short = 'R', long)]
    rsyncable: bool,
    /// Compression block size in KiB for the parallel engines (pigz's -b; default 256).
    #[arg(short = 'b', long = "blocksize", value_name = "KiB",
          value_parser = clap::value_parser!(u64).range(32..=1 << 20))]
    blocksize: Option<u64>,
    /// Do not store or restore the modification time (pigz).
    #[arg(short = 'm', long = "no-time", overrides_with = "time")]
    no_time: bool,
    /// Store or restore the modification time (pigz).
    #[arg(short = 'M', long = "time", overrides_with = "no_time")]
    time: bool,
    /// Put TEXT in the gzip header's comment field (pigz).
    #[arg(short = 'C', long = "comment", value_name = "TEXT")]
    comment: Option<OsString>,
    /// Decompress and compare every block before writing it.
    #[arg(long)]
    verify: bool,
    /// Print the version.
    #[arg(short = 'V', long = "version")]
    version: bool,
    /// Print the license.
    #[arg(short = 'L', long = "license")]
    license: bool,
    /// Convert end-of-lines (gzip's option; ignored on this system, as gzip ignores it on
    /// Unix).
    #[arg(short = 'a', long = "ascii")]
    ascii: bool,
    /// Synchronous output: accepted for gzip compatibility, and always the case (an output is
    /// synced to disk before its input is removed).
    #[arg(short = 'Y', long)]
    synchronous: bool,
    /// Files to process; none or `-` means standard input.
    files: Vec<OsString>,
}

/// What the user asked for, resolved.
#[derive(Debug, Clone)]
pub struct Options {
    /// Decompress (or test, or list) rather than compress.
    pub mode: Mode,
    /// Write results to standard output.
    pub stdout: bool,
    /// Overwrite existing outputs.
    pub force: bool,
    /// Keep input files.
    pub keep: bool,
    /// Store/restore name and mtime: `None` means gzip's default (store when compressing,
    /// do not restore when decompressing).
    pub name: Option<bool>,
    /// 0 normal, 1 quiet (-q), 2 very quiet.
    pub quiet: u8,
    /// Verbosity (-v).
    pub verbose: u8,
    /// Recurse into directories.
    pub recursive: bool,
    /// Compressed-file suffix.
    pub suffix: String,
    /// Compression level 0-12.
    pub level: u32,
    /// zlib strategy: Huffman-only (`-H`), RLE (`-U`) or the default.
    pub strategy: Strategy,
    /// Engines to use as `-p` gave them; [`Options::processes`] resolves the default.
    pub processes_arg: Option<usize>,
    /// Independent-block output.
    pub independent: bool,
    /// `-z`: a zlib stream instead of gzip (pigz's .zz).
    pub zlib: bool,
    /// `-K`: a zip archive of one entry instead of gzip (pigz's .zip).
    pub zip: bool,
    /// `-A`: the name of a zip entry from standard input.
    pub alias: Option<Vec<u8>>,
    /// Verify compressed output.
    pub verify: bool,
    /// Input files (empty: stdin).
    pub files: Vec<OsString>,
    /// `-a` was given (gzip notes that it is ignored).
    pub ascii: bool,
    /// `--rsyncable`: blocks end at input-determined positions.
    pub rsyncable: bool,
    /// `-b`: the parallel engines' block size in bytes, if given.
    pub block_size: Option<usize>,
    /// `-m` (Some(false)) / `-M` (Some(true)): store and restore the modification time or not,
    /// whatever -n / -N say of the name.
    pub time: Option<bool>,
    /// `-C`: the gzip header's comment.
    pub comment: Option<Vec<u8>>,
}

/// The operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Compress.
    Compress,
    /// Decompress.
    Decompress,
    /// Decompress and check, writing nothing.
    Test,
    /// Print sizes.
    List,
}

/// Result of parsing: run with options, print the version or licence, or refuse.
#[derive(Debug)]
pub enum Parsed {
    /// Normal operation.
    Run(Options),
    /// `-V`.
    Version,
    /// `-L`.
    License,
    /// Options that parse but that gzip refuses (an empty suffix, too many processes): the
    /// message, without the program's name. Exit status 1.
    Refused(String),
}

/// Rewrites level digits in short-option clusters into `--level=N` options, one per run of
/// consecutive digits.
pub fn normalize(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut files_only = false;
    let mut value_next = false;
    for (i, arg) in args.into_iter().enumerate() {
        let s = arg.to_string_lossy().into_owned();
        if i == 0
            || files_only
            || value_next
            || !s.starts_with('-')
            || s.starts_with("--")
            || s == "-"
        {
            if s == "--" {
                files_only = true;
            }
            value_next = false;
            out.push(arg);
            continue;
        }
        let mut rest = String::from("-");
        let mut levels: Vec<String> = Vec::new();
        let mut chars = s[1..].chars();
        let mut prev_digit = false;
        while let Some(c) = chars.next() {
            let digit = c.is_ascii_digit();
            match levels.last_mut() {
                Some(run) if digit && prev_digit => run.push(c),
                _ if digit => levels.push(c.into()),
                _ if "SpbCA".contains(c) => {
                    // Options with a value: the remainder of the cluster is the value.
                    rest.push(c);
                    let tail: String = chars.by_ref().collect();
                    value_next = tail.is_empty();
                    rest.push_str(&tail);
                    break;
                }
                _ => rest.push(c),
            }
            prev_digit = digit;
        }
        if rest.len() > 1 {
            out.push(rest.into());
        }
        for d in levels {
            out.push(format!("--level={d}").into());
        }
    }
    out
}

/// Options gzip 1.12 still takes from the GZIP environment variable (before the command
/// line's, which override them): levels, -n, -N, -q, -v and --rsyncable.
const ENV_SHORT: &str = "0123456789nNqv";
const ENV_LONG: [&str; 8] = [
    "--fast",
    "--best",
    "--no-name",
    "--name",
    "--quiet",
    "--silent",
    "--verbose",
    "--rsyncable",
];

/// The words of the GZIP environment variable `env`, checked as gzip checks them: an option it
/// does not take there, or an operand, is an error naming it.
pub fn env_options(env: &std::ffi::OsStr) -> Result<Vec<OsString>, String> {
    let text = env.to_string_lossy();
    let mut out = Vec::new();
    for w in text.split_whitespace() {
        let bad = if w.starts_with("--") {
            (!ENV_LONG.contains(&w)).then(|| w.to_string())
        } else if let Some(cluster) = w.strip_prefix('-').filter(|c| !c.is_empty()) {
            cluster
                .chars()
                .find(|c| !ENV_SHORT.contains(*c))
                .map(|c| format!("-{c}"))
        } else {
            return Err(format!("{w}: non-option in GZIP environment variable"));
        };
        if let Some(o) = bad {
            return Err(format!(
                "{o}: option not valid in GZIP environment variable"
            ));
        }
        out.push(w.into());
    }
    Ok(out)
}

/// Parses the process arguments, after the options of the GZIP environment variable `env`.
pub fn parse_with_env(
    args: impl IntoIterator<Item = OsString>,
    env: &[OsString],
) -> Result<Parsed, clap::Error> {
    let mut args = args.into_iter();
    let all = args
        .next()
        .into_iter()
        .chain(env.iter().cloned())
        .chain(args);
    parse(all)
}

/// Parses the process arguments.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Parsed, clap::Error> {
    let cli = Cli::try_parse_from(normalize(args))?;
    if cli.version {
        return Ok(Parsed::Version);
    }
    if cli.license {
        return Ok(Parsed::License);
    }
    let mut level = 6;
    if cli.fast {
        level = 1;
    }
    if cli.best {
        level = 9;
    }
    if let Some(&l) = cli.level.last() {
        level = l;
    }
    let mode = if cli.list {
        Mode::List
    } else if cli.test {
        Mode::Test
    } else if cli.decompress {
        Mode::Decompress
    } else {
        Mode::Compress
    };
    let name = match (cli.name, cli.no_name) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    };
    let processes_arg = cli.processes.map(|p| p.max(1));
    let suffix = cli.suffix.unwrap_or_else(|| match (cli.zlib, cli.zip) {
        (true, _) => ".zz".into(),
        (_, true) => ".zip".into(),
        _ => ".gz".into(),
    });
    if let Some(processes) = processes_arg.filter(|&p| p > MAX_PROCESSES) {
        // Each engine is a thread with its own stack and buffers: past this the system runs
        // out of threads or memory (100,000 aborted in the runtime before any message).
        return Ok(Parsed::Refused(format!(
            "-p {processes}: at most {MAX_PROCESSES} processes"
        )));
    }
    // gzip 1.12 refuses an empty suffix in every mode (before, -d -S '' took .gz) and one
    // longer than its MAX_SUFFIX.
    if suffix.is_empty() || suffix.len() > MAX_SUFFIX {
        return Ok(Parsed::Refused(format!("invalid suffix '{suffix}'")));
    }
    Ok(Parsed::Run(Options {
        mode,
        stdout: cli.stdout,
        force: cli.force,
        keep: cli.keep || cli.stdout,
        name,
        quiet: cli.quiet,
        verbose: cli.verbose,
        recursive: cli.recursive,
        suffix,
        level,
        strategy: match (cli.huffman, cli.rle) {
            (true, _) => Strategy::HuffmanOnly,
            (_, true) => Strategy::Rle,
            _ => Strategy::Default,
        },
        processes_arg,
        independent: cli.independent,
        zlib: cli.zlib,
        zip: cli.zip,
        alias: cli.alias.map(std::os::unix::ffi::OsStringExt::into_vec),
        rsyncable: cli.rsyncable,
        block_size: cli.blocksize.map(|k| (k as usize) << 10),
        time: match (cli.time, cli.no_time) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        },
        comment: cli.comment.map(std::os::unix::ffi::OsStringExt::into_vec),
        verify: cli.verify,
        ascii: cli.ascii,
        files: cli.files,
    }))
}

impl Options {
    /// Engines to use: `-p`, or by default every core this process may run on. The system is
    /// asked only here, once, when a run first needs the count: on Linux that reads the
    /// process's cgroup files. Runs on files too short for threads never ask (`files.rs`,
    /// `device_for`): CPU time per run (`perf stat`, best of five sets of 100, the two
    /// binaries alternating) of `hyperz -d -c` on a 3 KB gzip file went from 0.91 to 0.87 ms,
    /// of `hyperz -c` on xargs.1 from 1.00 to 0.95 ms.
    pub fn processes(&self) -> usize {
        static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        self.processes_arg.unwrap_or_else(|| {
            *CORES.get_or_init(|| {
                std::thread::available_parallelism()
                    .map_or(1, |n| n.get())
                    .min(MAX_PROCESSES)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `hyperz` with `args`, parsed.
    fn parsed(args: &[&str]) -> Result<Parsed, clap::Error> {
        parse(
            std::iter::once("hyperz")
                .chain(args.iter().copied())
                .map(OsString::from),
        )
    }

    fn opts(args: &[&str]) -> Options {
        match parsed(args).unwrap() {
            Parsed::Run(o) => o,
            other => panic!("not a run: {other:?}"),
        }
    }

    /// What parses but gzip refuses: an empty suffix in any mode, one over 30 bytes, and more
    /// engines than the system can run.
    #[test]
    fn refused_suffixes_and_process_counts() {
        let refused = |args: &[&str]| match parsed(args) {
            Ok(Parsed::Refused(why)) => why,
            other => panic!("{args:?} not refused: {other:?}"),
        };
        for mode in [&[][..], &["-d"], &["-c"], &["-dc"], &["-t"], &["-l"]] {
            let args: Vec<&str> = mode.iter().copied().chain(["-S", "", "f"]).collect();
            assert_eq!(refused(&args), "invalid suffix ''");
        }
        let long = "x".repeat(31);
        assert_eq!(
            refused(&["-S", &long, "f"]),
            format!("invalid suffix '{long}'")
        );
        assert_eq!(opts(&["-S", &long[1..], "f"]).suffix, long[1..]);
        assert_eq!(
            refused(&["-p", "1025", "f"]),
            "-p 1025: at most 1024 processes"
        );
        assert_eq!(opts(&["-p", "1024", "f"]).processes(), 1024);
        assert_eq!(opts(&["-p", "0", "f"]).processes(), 1);
        assert!(opts(&["f"]).processes() >= 1);
    }

    #[test]
    fn digits_in_clusters_set_the_level_and_the_last_wins() {
        assert_eq!(opts(&["-9c", "f"]).level, 9);
        assert!(opts(&["-9c", "f"]).stdout);
        assert_eq!(opts(&["-1", "-dc3"]).level, 3);
        assert_eq!(opts(&["--level", "12"]).level, 12);
        // A run of digits is one level, as in pigz and libdeflate's gzip.
        assert_eq!(opts(&["-12"]).level, 12);
        assert_eq!(opts(&["-c11", "f"]).level, 11);
        assert_eq!(opts(&["-10c", "f"]).level, 10);
        assert_eq!(opts(&["-1c2"]).level, 2);
        assert!(parse(["hyperz", "-13"].map(OsString::from)).is_err());
        assert!(parse(["hyperz", "-91"].map(OsString::from)).is_err());
        assert_eq!(opts(&["--fast"]).level, 1);
        assert_eq!(opts(&[]).level, 6);
    }

    #[test]
    fn huffman_and_rle_the_last_counts() {
        assert_eq!(opts(&[]).strategy, Strategy::Default);
        assert_eq!(opts(&["-H"]).strategy, Strategy::HuffmanOnly);
        assert_eq!(opts(&["-9U"]).strategy, Strategy::Rle);
        assert_eq!(opts(&["-U", "-H"]).strategy, Strategy::HuffmanOnly);
        assert_eq!(opts(&["-cH", "--rle", "f"]).strategy, Strategy::Rle);
    }

    #[test]
    fn option_values_are_not_mistaken_for_levels() {
        let o = opts(&["-p2", "-S", ".z9", "-k9"]);
        assert_eq!(o.processes(), 2);
        assert_eq!(o.suffix, ".z9");
        assert_eq!(o.level, 9);
        assert!(o.keep);
        let o = opts(&["-p", "3", "--", "-9"]);
        assert_eq!(o.processes(), 3);
        assert_eq!(o.files, vec![OsString::from("-9")]);
    }

    /// gzip's remaining options parse: --silent is -q, -a is noted, --synchronous is always the
    /// case, -L prints the license; and every option may repeat. So do pigz's -R, -Y, -b, -m/-M
    /// (the last wins) and -C.
    #[test]
    fn gzip_options_that_change_little() {
        let o = opts(&[
            "--silent",
            "-a",
            "--synchronous",
            "-c",
            "-c",
            "-S",
            ".x",
            "-S",
            ".y",
        ]);
        assert_eq!((o.quiet, o.ascii, o.stdout), (1, true, true));
        assert_eq!(o.suffix, ".y");
        let o = opts(&["-R", "-Y", "-b", "64", "-m", "-C", "note"]);
        assert!(o.rsyncable);
        assert_eq!((o.block_size, o.time), (Some(64 << 10), Some(false)));
        assert_eq!(o.comment.as_deref(), Some(&b"note"[..]));
        assert_eq!(opts(&["-m", "-M"]).time, Some(true));
        assert_eq!(opts(&["-M", "-m"]).time, Some(false));
        for l in ["-L", "--license"] {
            let v = ["hyperz", l].map(OsString::from);
            assert!(matches!(parse(v), Ok(Parsed::License)));
        }
    }

    /// The GZIP environment variable: gzip's safe options first, the command line after them
    /// (so it overrides them); anything else is an error naming it.
    #[test]
    fn gzip_environment_options() {
        let env = env_options("-9 --rsyncable -nq".as_ref()).unwrap();
        let run = |args: &[&str]| {
            let v = std::iter::once("hyperz").chain(args.iter().copied());
            match parse_with_env(v.map(OsString::from), &env).unwrap() {
                Parsed::Run(o) => o,
                _ => panic!("not a run"),
            }
        };
        let o = run(&["f"]);
        assert!(o.level == 9 && o.rsyncable && o.name == Some(false) && o.quiet == 1);
        assert_eq!(run(&["-1", "f"]).level, 1);
        assert!(env_options("".as_ref()).unwrap().is_empty());
        let e = |s: &str| env_options(s.as_ref()).unwrap_err();
        assert_eq!(
            e("-9 -c"),
            "-c: option not valid in GZIP environment variable"
        );
        assert_eq!(
            e("-9k"),
            "-k: option not valid in GZIP environment variable"
        );
        assert_eq!(
            e("--synchronous"),
            "--synchronous: option not valid in GZIP environment variable"
        );
        assert_eq!(e("file"), "file: non-option in GZIP environment variable");
    }

    /// pigz's -z: zlib output with the suffix .zz unless -S says otherwise; not with -i
    /// (independent members are gzip's).
    #[test]
    fn zlib_output_option() {
        let o = opts(&["-z9", "f"]);
        assert!(o.zlib && o.level == 9 && o.suffix == ".zz");
        assert_eq!(opts(&["--zlib", "-S", ".q", "f"]).suffix, ".q");
        assert_eq!(opts(&["f"]).suffix, ".gz");
        assert!(parse(["hyperz", "-zi", "f"].map(OsString::from)).is_err());
        let o = opts(&["-K", "f"]);
        assert!(o.zip && !o.zlib && o.suffix == ".zip");
        assert_eq!(
            opts(&["-KAdata.csv"]).alias.as_deref(),
            Some(&b"data.csv"[..])
        );
        // A value's digits are not a level (-C and -A as -S, -p and -b).
        let o = opts(&["-C2024", "-A", "x9"]);
        assert_eq!((o.level, o.comment.as_deref()), (6, Some(&b"2024"[..])));
        assert!(parse(["hyperz", "-Kz", "f"].map(OsString::from)).is_err());
    }

    #[test]
    fn modes() {
        assert_eq!(opts(&["-d"]).mode, Mode::Decompress);
        assert_eq!(opts(&["-t"]).mode, Mode::Test);
        assert_eq!(opts(&["-l"]).mode, Mode::List);
        assert_eq!(opts(&["-N"]).name, Some(true));
    }
}
