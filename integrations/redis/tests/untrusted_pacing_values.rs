//! A pacing key in Redis may hold what this library never writes: a field that is not a
//! number, NaN, infinity, a negative capacity, a hold in a week. Each is that bucket's
//! problem: dropped, counted as absent, one warning, and the key goes on.

mod support;

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use agent_error::redis::RedisStore;
use agent_error::store::{PaceAnswer, PaceStep, PaceStore};
use support::Server;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// The warnings logged so far, as (key, message).
fn warnings() -> &'static Mutex<Vec<(String, String)>> {
    static WARNINGS: OnceLock<Mutex<Vec<(String, String)>>> = OnceLock::new();
    WARNINGS.get_or_init(|| {
        tracing::subscriber::set_global_default(Capture).expect("the only subscriber");
        Mutex::new(Vec::new())
    })
}

/// The warnings about `key`.
fn warnings_about(key: &str) -> Vec<String> {
    warnings()
        .lock()
        .unwrap()
        .iter()
        .filter(|(k, _)| k == key)
        .map(|(_, m)| m.clone())
        .collect()
}

struct Capture;

#[derive(Default)]
struct Fields {
    key: String,
    message: String,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "key" {
            self.key = value.to_owned();
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        match field.name() {
            "message" => self.message = format!("{value:?}"),
            "key" => self.key = format!("{value:?}"),
            _ => {}
        }
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        if *event.metadata().level() == Level::WARN {
            let mut fields = Fields::default();
            event.record(&mut fields);
            warnings()
                .lock()
                .unwrap()
                .push((fields.key, fields.message));
        }
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

async fn store(server: &Server) -> RedisStore {
    RedisStore::builder(server.url())
        .timeout(Duration::from_secs(2))
        .connect()
        .await
        .expect("a store")
}

/// The server's time in milliseconds since the epoch.
fn now_ms(server: &Server) -> i64 {
    let redis::Value::Array(t) = server.command(&["TIME"]) else {
        panic!("TIME answers an array");
    };
    let read = |v: &redis::Value| match v {
        redis::Value::BulkString(b) => std::str::from_utf8(b).unwrap().parse::<i64>().unwrap(),
        other => panic!("{other:?}"),
    };
    read(&t[0]) * 1000 + read(&t[1]) / 1000
}

/// Writes dimension `d` of `key` by hand: 20 a second at most, 5 left, refilling at 1 a
/// second, reported; `bad` replaces one field's value.
fn write_bucket(server: &Server, key: &str, d: usize, bad: Option<(&str, &str)>) {
    let now = now_ms(server).to_string();
    let mut args = vec!["HSET".to_owned(), key.to_owned()];
    for (name, value) in [
        ("c", "20"),
        ("r", "1"),
        ("l", "5"),
        ("t", now.as_str()),
        ("h", "0"),
        ("p", "1"),
    ] {
        let value = match bad {
            Some((field, bad)) if field == name => bad,
            _ => value,
        };
        args.push(format!("{name}{d}"));
        args.push(value.to_owned());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    server.command(&args);
}

fn exists(server: &Server, key: &str, field: &str) -> bool {
    server.command(&["HEXISTS", key, field]) == redis::Value::Int(1)
}

/// A step that only looks (takes nothing), from replica 1.
fn look() -> PaceStep {
    PaceStep {
        replica: 1,
        ..PaceStep::default()
    }
}

async fn pace(store: &RedisStore, name: &str, step: PaceStep) -> PaceAnswer {
    store.pace(name, step).await.expect("Redis answers")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bucket_written_by_hand_as_this_library_writes_it_is_obeyed() {
    warnings();
    let server = Server::start();
    let store = store(&server).await;
    let key = store.key("pace", "by-hand");
    write_bucket(&server, &key, 0, Some(("l", "0")));
    let mut step = look();
    step.dimensions[0].take = 1.0;
    step.max_wait = Duration::from_secs(5);
    let answer = pace(&store, "by-hand", step).await;
    let wait = answer.wait.expect("reserved");
    assert!(
        wait > Duration::from_millis(900) && wait <= Duration::from_secs(1),
        "{wait:?}"
    );
    assert!(warnings_about(&key).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_field_that_is_not_a_plausible_number_drops_its_bucket_with_one_warning() {
    warnings();
    let server = Server::start();
    let store = store(&server).await;
    let in_26_hours = (now_ms(&server) + 26 * 3600 * 1000).to_string();
    let cases = [
        ("c", "twenty"),
        ("l", "nan"),
        ("l", "NaN"),
        ("r", "inf"),
        ("r", "-inf"),
        ("t", "1e400"),
        ("c", "-5"),
        ("c", "0"),
        ("r", "-1"),
        ("h", in_26_hours.as_str()),
        ("p", ""),
    ];
    for (i, (field, bad)) in cases.into_iter().enumerate() {
        let name = format!("bad-{i}");
        let key = store.key("pace", &name);
        write_bucket(&server, &key, 0, Some((field, bad)));
        write_bucket(&server, &key, 1, None);

        let answer = pace(&store, &name, look()).await;
        let case = format!("{field} = {bad:?}: {answer:?}");
        assert_eq!(answer.buckets[0], None, "{case}");
        assert!(
            answer.buckets[1].is_some(),
            "the sound bucket is kept: {case}"
        );
        assert!(
            !exists(&server, &key, "c0") && !exists(&server, &key, "p0"),
            "{case}"
        );
        let warned = warnings_about(&key);
        assert_eq!(warned.len(), 1, "{case}: {warned:?}");
        assert!(warned[0].contains("pacing key"), "{warned:?}");

        // The key goes on: a configured limit makes the bucket again, no further warning.
        let mut step = look();
        step.dimensions[0].configured = Some((10.0, 1.0));
        step.dimensions[0].take = 1.0;
        let answer = pace(&store, &name, step).await;
        assert_eq!(answer.wait, Ok(Duration::ZERO), "{case}");
        let level = answer.buckets[0].expect("configured").level;
        assert!((level - 9.0).abs() < 1e-9, "{case}");
        assert_eq!(warnings_about(&key).len(), 1, "{case}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_field_that_is_not_a_time_is_dropped() {
    warnings();
    let server = Server::start();
    let store = store(&server).await;
    let key = store.key("pace", "replicas");
    let in_a_day = (now_ms(&server) + 86_400_000).to_string();
    server.command(&["HSET", &key, "x:5", "soon", "x:6", "inf", "x:7", &in_a_day]);
    let answer = pace(&store, "replicas", look()).await;
    assert_eq!(answer.replicas, 1);
    for field in ["x:5", "x:6", "x:7"] {
        assert!(!exists(&server, &key, field), "{field}");
    }
    assert!(exists(&server, &key, "x:1"));
    assert_eq!(warnings_about(&key).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pacing_key_of_another_type_is_replaced() {
    warnings();
    let server = Server::start();
    let store = store(&server).await;
    let key = store.key("pace", "a-string");
    server.command(&["SET", &key, "hello"]);
    let mut step = look();
    step.dimensions[0].configured = Some((10.0, 1.0));
    step.dimensions[0].take = 1.0;
    let answer = pace(&store, "a-string", step).await;
    assert_eq!(answer.wait, Ok(Duration::ZERO));
    assert!(exists(&server, &key, "c0"));
    let warned = warnings_about(&key);
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(warned[0].contains("another type"), "{warned:?}");
}

/// Writes dimension 0 of `key` by hand from `fields` (name without the dimension, value).
fn write_fields(server: &Server, key: &str, fields: &[(&str, String)]) {
    let mut args = vec!["HSET".to_owned(), key.to_owned()];
    for (name, value) in fields {
        args.push(format!("{name}0"));
        args.push(value.clone());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    server.command(&args);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_number_out_of_range_neither_lifts_the_limit_nor_locks_the_key() {
    warnings();
    let server = Server::start();
    let store = store(&server).await;
    let now = now_ms(&server);
    let just_under_25_hours = (now + 25 * 3600 * 1000 - 1000).to_string();
    let now = now.to_string();
    let bucket = |c: &str, r: &str, l: &str, h: &str, p: &str| {
        vec![
            ("c", c.to_owned()),
            ("r", r.to_owned()),
            ("l", l.to_owned()),
            ("t", now.clone()),
            ("h", h.to_owned()),
            ("p", p.to_owned()),
        ]
    };
    let cases = [
        // A huge bucket that never refills would let every call through.
        ("huge, reported", bucket("1e308", "0", "1e308", "0", "1")),
        ("huge, configured", bucket("1e308", "0", "1e308", "0", "0")),
        ("large, configured", bucket("1e14", "0", "1e14", "0", "0")),
        // A level far below zero would lock the key for 25 hours.
        ("deep", bucket("20", "1", "-1e308", "0", "1")),
        // Below what reservations granted a wait of at most 25 hours can owe (20 + 90,000).
        (
            "below what reservations owe",
            bucket("20", "1", "-90021", "0", "1"),
        ),
        ("above its capacity", bucket("20", "1", "1e9", "0", "1")),
        // A rate that never fills the bucket, after a hold of almost 25 hours.
        (
            "slow",
            bucket("20", "1e-300", "0", just_under_25_hours.as_str(), "1"),
        ),
        (
            "capacity above the largest",
            bucket("2e15", "1e15", "2e15", "0", "1"),
        ),
    ];
    for (i, (case, fields)) in cases.iter().enumerate() {
        let name = format!("out-of-range-{i}");
        write_fields(&server, &store.key("pace", &name), fields);
        // A pacer that knows the limit: two a second.
        let mut step = look();
        step.dimensions[0].configured = Some((2.0, 2.0));
        step.dimensions[0].take = 1.0;
        step.max_wait = Duration::from_secs(3600);
        let mut waits = Vec::new();
        for _ in 0..3 {
            waits.push(pace(&store, &name, step).await.wait);
        }
        let last = waits[2].expect("reserved within the hour");
        assert!(
            waits[..2].iter().all(|w| *w == Ok(Duration::ZERO)),
            "{case}: {waits:?}"
        );
        assert!(
            last > Duration::from_millis(400) && last <= Duration::from_millis(500),
            "{case}: the configured limit holds, no more: {waits:?}"
        );
    }
}
