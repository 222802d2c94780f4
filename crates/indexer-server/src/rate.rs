//! The per-client rate limit (`ServerConfig::rate_limit`): a token bucket per client address
//! that holds a second's worth of requests and refills at the rate, so a client may send a
//! burst of that many and then the rate. A request over it is answered 429 with
//! `Retry-After`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Buckets kept before the full ones (clients quiet for a second or more) are dropped.
const MAX_CLIENTS: usize = 10_000;

#[derive(Debug)]
pub(crate) struct RateLimiter {
    per_second: f64,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl RateLimiter {
    pub(crate) fn new(per_second: u32) -> RateLimiter {
        RateLimiter {
            per_second: f64::from(per_second.max(1)),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes a token for `client` at `now`; `Err(wait)` when there is none, with the time
    /// until there is.
    pub(crate) fn check(&self, client: IpAddr, now: Instant) -> Result<(), Duration> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= MAX_CLIENTS {
            let full = Duration::from_secs(1);
            buckets.retain(|_, b| now.saturating_duration_since(b.at) < full);
        }
        let cap = self.per_second;
        let b = buckets.entry(client).or_insert(Bucket {
            tokens: cap,
            at: now,
        });
        let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
        b.tokens = (b.tokens + elapsed * self.per_second).min(cap);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - b.tokens) / self.per_second))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the definition: over any run of requests, a client gets at most the burst plus
    /// the rate times the time elapsed, and every refusal says how long until the next token.
    #[test]
    fn a_burst_then_the_rate() {
        let r = RateLimiter::new(4);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let t0 = Instant::now();
        for _ in 0..4 {
            assert!(r.check(a, t0).is_ok());
        }
        let wait = r.check(a, t0).unwrap_err();
        assert!((wait.as_secs_f64() - 0.25).abs() < 1e-6, "{wait:?}");
        // Another client has its own bucket.
        assert!(r.check(b, t0).is_ok());
        // A quarter of a second later, one more.
        assert!(r.check(a, t0 + Duration::from_millis(250)).is_ok());
        assert!(r.check(a, t0 + Duration::from_millis(250)).is_err());
        // Over 10 s of one request every 50 ms: 4 + 4 * 10 at most.
        let allowed = (0..200)
            .filter(|i| r.check(b, t0 + Duration::from_millis(50 * i)).is_ok())
            .count();
        assert!((40..=4 + 40).contains(&allowed), "{allowed}");
    }
}
