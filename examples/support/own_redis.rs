//! A `redis-server` of an example's own, on a free loopback port, killed on drop: what the
//! examples that share state through Redis start when no `REDIS_URL` is given.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The running server; dropping it kills it.
pub struct OwnRedis(Child);

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `redis-server` without persistence on a free loopback port and waits (at most
/// 10 s) until it accepts connections; returns it and its URL.
pub fn start() -> Result<(OwnRedis, String), Box<dyn std::error::Error>> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("redis-server: {e} (install it: apt-get install -y redis-server)"))?;
    let server = OwnRedis(child);
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if started.elapsed() > Duration::from_secs(10) {
            return Err("redis-server did not start within 10 s".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok((server, format!("redis://127.0.0.1:{port}")))
}
