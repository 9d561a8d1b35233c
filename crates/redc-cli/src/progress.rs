//! Progress display (`indicatif`) for anything that can take more than two
//! seconds: shown when stderr is a terminal, or on request (`--progress`),
//! then as plain lines when stderr is not a terminal; quiet otherwise.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};
use std::io::IsTerminal;
use std::time::Duration;

/// Where progress goes: nowhere, a terminal, or plain lines (forced).
fn target(forced: bool) -> Option<(ProgressDrawTarget, bool)> {
    if std::io::stderr().is_terminal() {
        Some((ProgressDrawTarget::stderr(), true))
    } else if forced {
        Some((ProgressDrawTarget::term_like_with_hz(Box::new(Lines), 1), false))
    } else {
        None
    }
}

/// A spinner with a message and the elapsed time, ticking on its own so that
/// a long stage visibly moves; `None` when quiet.
pub fn spinner(forced: bool, message: String) -> Option<ProgressBar> {
    let (target, live) = target(forced)?;
    let bar = ProgressBar::with_draw_target(None, target);
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
            .expect("fixed template")
            .tick_strings(&["-", "\\", "|", "/", " "]),
    );
    bar.set_message(message);
    if live {
        bar.enable_steady_tick(Duration::from_millis(120));
    }
    Some(bar)
}

/// A bar of `len` steps with a message; `None` when quiet.
pub fn bar(forced: bool, len: u64, message: String) -> Option<ProgressBar> {
    let (target, _) = target(forced)?;
    let bar = ProgressBar::with_draw_target(Some(len), target);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} [{elapsed}, about {eta} left]")
            .expect("fixed template")
            .progress_chars("=> "),
    );
    bar.set_message(message);
    Some(bar)
}

/// Plain lines on stderr, for a forced display that is not a terminal.
#[derive(Debug)]
struct Lines;

impl TermLike for Lines {
    fn width(&self) -> u16 {
        100
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        if !s.trim().is_empty() {
            eprintln!("{}", s.trim_end());
        }
        Ok(())
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.write_line(s)
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        Ok(())
    }
}
