//! Messages and the exit status, as gzip does them: 0 success, 1 error, 2 warning (an error
//! wins over a warning). Every message names the program and the file.

use crate::codec::CodecError;

/// How bad a message is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Severity {
    /// Something was skipped or ignored; exit status 2 unless an error happened.
    Warning,
    /// An operation failed; exit status 1.
    Error,
}

/// Collects the outcome of a run.
#[derive(Default)]
pub struct Reporter {
    worst: Option<Severity>,
    quiet: bool,
    /// Totals for `-l` over several files: (files, compressed, uncompressed).
    pub list_totals: (u64, u64, u64),
    /// `-l`: the column titles were printed.
    pub list_header: bool,
    /// `-l`: header and trailer bytes of the last file listed (see `list::print_totals`).
    pub list_framing: u64,
}

impl Reporter {
    /// A reporter; `quiet` suppresses warnings (not errors), as gzip's -q does.
    pub fn new(quiet: bool) -> Reporter {
        Reporter {
            quiet,
            ..Reporter::default()
        }
    }

    /// Prints `hyperz: text` and records its severity.
    pub fn msg(&mut self, sev: Severity, text: &str) {
        if sev == Severity::Error || !self.quiet {
            eprintln!("hyperz: {text}");
        }
        self.worst = self.worst.max(Some(sev));
    }

    /// A notice that does not change the exit status (gzip prints "already has .gz suffix"
    /// this way and still exits 0).
    pub fn note(&mut self, text: &str) {
        if !self.quiet {
            eprintln!("hyperz: {text}");
        }
    }

    /// An I/O error on `name`.
    pub fn io_error(&mut self, name: &str, e: &std::io::Error) {
        self.msg(Severity::Error, &format!("{name}: {}", io_text(e)));
    }

    /// A failed operation on `name` that loses nothing (gzip's WARN, as for an input it
    /// could not remove once its output was complete): exit status 2, silent with -q.
    pub fn io_warning(&mut self, name: &str, e: &std::io::Error) {
        self.file_warning(name, &io_text(e));
    }

    /// A stream error on `name`. A reader that closed the pipe on stdout (`hyperz -dc f |
    /// head`) ends the run quietly with the status of a process killed by SIGPIPE, as gzip,
    /// which dies of that signal, ends it: nothing more can be delivered.
    pub fn file_error(&mut self, name: &str, e: &CodecError) {
        if let CodecError::Write(io) = e {
            if io.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(128 + 13);
            }
        }
        self.msg(Severity::Error, &format!("{name}: {e}"));
    }

    /// A warning about `name`.
    pub fn file_warning(&mut self, name: &str, text: &str) {
        self.msg(Severity::Warning, &format!("{name}: {text}"));
    }

    /// The process exit status.
    pub fn exit_code(&self) -> i32 {
        match self.worst {
            None => 0,
            Some(Severity::Error) => 1,
            Some(Severity::Warning) => 2,
        }
    }
}

/// The system's text for `e`, as gzip's perror prints it ("Operation not permitted", not
/// Rust's "... (os error 1)"; EPERM and EACCES both have the kind PermissionDenied).
fn io_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    match (e.raw_os_error(), text.rfind(" (os error ")) {
        (Some(_), Some(i)) => text[..i].to_string(),
        _ => text,
    }
}
