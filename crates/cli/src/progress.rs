//! A progress bar on stderr for long operations, shown only when stderr is a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Inputs smaller than this finish too quickly for a bar to help.
const MIN_BYTES_FOR_BAR: u64 = 64 << 20;

/// Progress of one file, in input bytes.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar for an input of `total` bytes (if known), or an invisible one when stderr is not a
    /// terminal, the input is small, or the user asked for quiet.
    pub fn new(total: Option<u64>, label: &str, quiet: bool) -> Progress {
        let wanted = !quiet
            && std::io::stderr().is_terminal()
            && total.is_none_or(|t| t >= MIN_BYTES_FOR_BAR);
        if !wanted {
            return Progress { bar: None };
        }
        let bar = match total {
            Some(t) => ProgressBar::with_draw_target(Some(t), ProgressDrawTarget::stderr()),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
        };
        let template = if total.is_some() {
            "{msg} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}"
        } else {
            "{msg} {bytes} {binary_bytes_per_sec} {elapsed}"
        };
        bar.set_style(
            ProgressStyle::with_template(template)
                .unwrap()
                .progress_chars("=> "),
        );
        bar.set_message(label.to_string());
        Progress { bar: Some(bar) }
    }

    /// An invisible bar.
    pub fn none() -> Progress {
        Progress { bar: None }
    }

    /// Records `n` more input bytes.
    pub fn advance(&self, n: u64) {
        if let Some(b) = &self.bar {
            b.inc(n);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
