//! A real `redis-server` on a free loopback port for the tests, stopped on drop and, for a
//! server kept in a `static` (never dropped), when the test binary exits: it runs under a
//! shell that holds a pipe from this process and stops it when the pipe closes.

#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What to run when `redis-server` is missing.
pub const INSTALL: &str = "redis-server not found: install it (`apt-get install -y redis-server`) or run `scripts/test.sh`, which does";

pub struct Server {
    pub port: u16,
    child: Option<Child>,
    /// Arguments after the port and the address.
    extra: Vec<String>,
}

/// A free port of 127.0.0.1.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl Server {
    /// Starts a server on a free port of 127.0.0.1; panics with the install command when
    /// `redis-server` is missing, so that the test fails and says why.
    pub fn start() -> Server {
        Server::start_with(free_port(), Vec::new())
    }

    fn start_with(port: u16, extra: Vec<String>) -> Server {
        let mut server = Server {
            port,
            child: None,
            extra,
        };
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
            .args(&self.extra)
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

/// A Redis Cluster of three masters (no replicas) on loopback, made with `redis-cli
/// --cluster create`, its nodes stopped and their files removed on drop.
pub struct Cluster {
    pub nodes: Vec<Server>,
    dir: PathBuf,
}

impl Cluster {
    pub fn start() -> Cluster {
        let dir = std::env::temp_dir().join(format!(
            "agent-error-cluster-{}-{}",
            std::process::id(),
            free_port()
        ));
        std::fs::create_dir_all(&dir).expect("a directory for the nodes' files");
        let mut cluster = Cluster {
            nodes: Vec::new(),
            dir,
        };
        for _ in 0..3 {
            let port = bus_free_port();
            let extra = [
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                &format!("nodes-{port}.conf"),
                "--cluster-node-timeout",
                "5000",
                "--dir",
                &cluster.dir.display().to_string(),
            ];
            let extra = extra.iter().map(|s| s.to_string()).collect();
            cluster.nodes.push(Server::start_with(port, extra));
        }
        let mut create = Command::new("redis-cli");
        create.args(["--cluster", "create"]);
        for node in &cluster.nodes {
            create.arg(format!("127.0.0.1:{}", node.port));
        }
        let mut create = create
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-cli runs (it comes with redis-server)");
        let started = Instant::now();
        loop {
            if let Some(status) = create.try_wait().expect("redis-cli") {
                assert!(status.success(), "redis-cli --cluster create failed");
                break;
            }
            if started.elapsed() > Duration::from_secs(30) {
                let _ = create.kill();
                panic!("redis-cli --cluster create did not finish within 30 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        while !cluster.is_ok() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the cluster did not come up within 30 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        cluster
    }

    /// Whether every node says the cluster is up.
    fn is_ok(&self) -> bool {
        self.nodes.iter().all(|node| {
            let info = match node.command(&["CLUSTER", "INFO"]) {
                redis::Value::BulkString(b) => String::from_utf8_lossy(&b).into_owned(),
                redis::Value::VerbatimString { text, .. } => text,
                _ => String::new(),
            };
            info.lines().any(|l| l.trim() == "cluster_state:ok")
        })
    }

    /// The nodes' URLs.
    pub fn urls(&self) -> Vec<String> {
        self.nodes.iter().map(Server::url).collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for node in &mut self.nodes {
            node.kill();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A free port whose cluster bus port (10,000 above it) is free too.
fn bus_free_port() -> u16 {
    for _ in 0..200 {
        let port = free_port();
        if let Some(bus) = port.checked_add(10_000)
            && TcpListener::bind(("127.0.0.1", bus)).is_ok()
        {
            return port;
        }
    }
    panic!("no free loopback port with a free bus port");
}

/// Every reservation counts, through a shared store: `calls` reservations made at once on
/// `pacers` (in turn), each allowed to wait `max_wait`. Returns when each was granted, from
/// `start` (the time its answer arrived plus its wait: never earlier than the store's own
/// grant), and panics on a wait past `max_wait` or a refusal within it (less the time it
/// took to answer).
pub async fn grants(
    pacers: &[agent_error::recover::Pacer],
    key: &str,
    calls: usize,
    max_wait: Duration,
) -> Vec<Duration> {
    use agent_error::recover::Cost;
    let start = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..calls {
        let (pacer, key) = (pacers[i % pacers.len()].clone(), key.to_owned());
        tasks.push(tokio::spawn(async move {
            let answer = pacer.reserve(&key, Cost::request(), max_wait).await;
            (answer, start.elapsed())
        }));
    }
    let mut granted = Vec::new();
    for task in tasks {
        match task.await.expect("a reservation") {
            (Ok(wait), at) => {
                assert!(wait <= max_wait, "waits {wait:?} past {max_wait:?}");
                granted.push(at + wait);
            }
            // The time spent asking the store counts against the longest wait.
            (Err(needed), at) => assert!(
                needed + at > max_wait || needed == agent_error::store::MAX_HOLD,
                "refused with {needed:?} after {at:?}, within {max_wait:?}"
            ),
        }
    }
    granted.sort();
    granted
}

/// Asserts that the grants follow `limit`'s curve: the n-th grant, at `t` from the start,
/// has n at most `capacity + rate·t + 1`.
pub fn assert_under_the_curve(limit: agent_error::recover::Limit, granted: &[Duration]) {
    let capacity = limit.amount() as f64;
    let rate = capacity / limit.per().as_secs_f64();
    for (n, at) in granted.iter().enumerate() {
        let allowed = capacity + rate * at.as_secs_f64() + 1.0;
        assert!(
            (n + 1) as f64 <= allowed + 1e-6,
            "{} calls granted by {at:?}, where {limit:?} allows {allowed:.2}",
            n + 1
        );
    }
}

/// The property of every reservation counting, on `stores`: `cases` draws of a limit, a
/// longest wait, a number of calls made at once and of replicas (each its own store), whose
/// grants must follow the limit's curve. Each draw paces a key of its own.
pub fn grants_follow_the_curve(
    runtime: &tokio::runtime::Runtime,
    stores: &[std::sync::Arc<agent_error::redis::RedisStore>],
    cases: u32,
) {
    use agent_error::recover::{Limit, Pacer};
    use proptest::prelude::*;
    let case = std::sync::atomic::AtomicUsize::new(0);
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let strategy = (
        1u64..60,
        50u64..20_000,
        0u64..3_000,
        1usize..150,
        1..=stores.len(),
    );
    proptest::test_runner::TestRunner::new(config)
        .run(
            &strategy,
            |(amount, per_ms, max_wait_ms, calls, replicas)| {
                let key = format!(
                    "curve/{}",
                    case.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                );
                let limit = Limit::requests(amount, Duration::from_millis(per_ms));
                let max_wait = Duration::from_millis(max_wait_ms);
                let pacers: Vec<Pacer> = stores[..replicas]
                    .iter()
                    .map(|store| Pacer::new().limit(&key, limit).shared_in(store.clone()))
                    .collect();
                let granted = runtime.block_on(grants(&pacers, &key, calls, max_wait));
                assert_under_the_curve(limit, &granted);
                Ok(())
            },
        )
        .unwrap();
}
