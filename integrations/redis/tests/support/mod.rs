//! A real `redis-server` on a free loopback port for the tests, stopped on drop and, for a
//! server kept in a `static` (never dropped), when the test binary exits: it runs under a
//! shell that holds a pipe from this process and stops it when the pipe closes.

#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What to run when `redis-server` is missing.
pub const INSTALL: &str = "redis-server not found: install it (`apt-get install -y redis-server`) or run `scripts/test.sh`, which does";

pub struct Server {
    pub port: u16,
    child: Option<Child>,
}

impl Server {
    /// Starts a server on a free port of 127.0.0.1; panics with the install command when
    /// `redis-server` is missing, so that the test fails and says why.
    pub fn start() -> Server {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free loopback port");
        let mut server = Server { port, child: None };
        server.run();
        server
    }

    fn run(&mut self) {
        match Command::new("redis-server").arg("--version").output() {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => panic!("{INSTALL}"),
            Err(e) => panic!("could not run redis-server: {e}"),
        }
        // The shell waits on its stdin, a pipe from this process: when it closes (on `kill`,
        // or when this process exits, however it exits) the server is stopped and reaped.
        let child = Command::new("sh")
            .args([
                "-c",
                "redis-server \"$@\" & pid=$!; cat > /dev/null; kill $pid 2> /dev/null; wait $pid",
                "sh",
            ])
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("sh starts redis-server");
        self.child = Some(child);
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() && self.ping() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!(
            "redis-server did not answer on port {} within 10 s",
            self.port
        );
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    fn ping(&self) -> bool {
        redis::Client::open(self.url())
            .and_then(|c| c.get_connection_with_timeout(Duration::from_millis(200)))
            .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c))
            .is_ok()
    }

    /// Runs one command on the server.
    pub fn command(&self, args: &[&str]) -> redis::Value {
        let client = redis::Client::open(self.url()).expect("url");
        let mut conn = client
            .get_connection_with_timeout(Duration::from_secs(2))
            .expect("a connection to the test server");
        let mut cmd = redis::cmd(args[0]);
        for a in &args[1..] {
            cmd.arg(*a);
        }
        cmd.query(&mut conn).expect("the command runs")
    }

    /// How many times the server ran scripts (EVAL and EVALSHA) so far.
    pub fn script_calls(&self) -> u64 {
        let info = match self.command(&["INFO", "commandstats"]) {
            redis::Value::BulkString(b) => String::from_utf8_lossy(&b).into_owned(),
            redis::Value::VerbatimString { text, .. } => text,
            other => format!("{other:?}"),
        };
        info.lines()
            .filter(|l| l.starts_with("cmdstat_evalsha:") || l.starts_with("cmdstat_eval:"))
            .filter_map(|l| {
                l.split("calls=")
                    .nth(1)?
                    .split(',')
                    .next()?
                    .parse::<u64>()
                    .ok()
            })
            .sum()
    }

    /// Stops the server and waits until it is gone (its port free again).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            drop(child.stdin.take());
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port.
    pub fn restart(&mut self) {
        self.kill();
        self.run();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}
