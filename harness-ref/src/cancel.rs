//! Cancelling a turn while its handlers run.
//!
//! A user who stops the agent (Ctrl-C, a stop button, an abort signal) cancels the turn, not
//! each call: a [`CancelToken`] is that one switch. [`crate::Harness::handle_cancellable_batch`]
//! answers every call still running when it flips with a `cancelled` error (so each call still
//! gets exactly one result), keeps the results of calls that finished before it, and hands the
//! token to handlers through [`crate::CallContext::cancelled`] and
//! [`crate::CallContext::sleep`] so cooperative ones can stop early. A handler that does not
//! look is not interrupted (Rust threads cannot be); its late result is discarded.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A shared cancellation switch: cheap to clone, flipped once, never reset.
#[derive(Debug, Clone, Default)]
pub struct CancelToken {
    inner: Arc<(Mutex<Option<Instant>>, Condvar)>,
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        CancelToken::default()
    }

    fn state(&self) -> MutexGuard<'_, Option<Instant>> {
        self.inner.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Cancels: every waiter wakes. Cancelling again changes nothing (the first instant stays).
    pub fn cancel(&self) {
        let mut at = self.state();
        if at.is_none() {
            *at = Some(Instant::now());
        }
        self.inner.1.notify_all();
    }

    /// Whether [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.state().is_some()
    }

    /// When the token was cancelled, if it was.
    pub fn cancelled_at(&self) -> Option<Instant> {
        *self.state()
    }

    /// Waits up to `timeout` or until the token is cancelled; true when it was cancelled.
    pub fn wait_timeout(&self, timeout: Duration) -> bool {
        let until = Instant::now().checked_add(timeout);
        let mut at = self.state();
        while at.is_none() {
            let left = match until {
                Some(u) => u.saturating_duration_since(Instant::now()),
                None => Duration::from_secs(3600),
            };
            if left.is_zero() {
                return false;
            }
            at = self
                .inner
                .1
                .wait_timeout(at, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_ends_early_when_the_token_is_cancelled() {
        let token = CancelToken::new();
        assert!(!token.is_cancelled());
        assert!(!token.wait_timeout(Duration::from_millis(1)));
        let other = token.clone();
        let t = std::thread::spawn(move || other.wait_timeout(Duration::from_secs(30)));
        token.cancel();
        assert!(t.join().unwrap());
        let first = token.cancelled_at();
        token.cancel();
        assert_eq!(token.cancelled_at(), first);
    }
}
