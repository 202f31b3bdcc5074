//! `cargo run --release -p agent-error-bad-day -- [--seed N] [--secs S] [--loops L]
//! [--only NAME] [--single]`: an agent's bad day, measured. Each strategy runs the same
//! workload against a fresh provider farm with the same seed, with one replica and then
//! with a fleet of four (sharing Redis, for the strategies that can), and the table says
//! what each came to.

// The examples' own redis-server, started on a free loopback port and killed on drop.
#[path = "../../../examples/support/own_redis.rs"]
mod own_redis;
mod report;
mod sse;
mod strategies;
mod workload;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use agent_error::redis::RedisStore;
use agent_error_farm::{Config, Farm, Kind, Rates};

use crate::report::Row;
use crate::strategies::Env;
use crate::workload::Plan;

/// The arguments.
struct Args {
    seed: u64,
    secs: u64,
    loops: usize,
    tasks: usize,
    only: Option<String>,
    single: bool,
}

fn args() -> Args {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        all.iter()
            .position(|a| a == flag)
            .and_then(|i| all.get(i + 1))
            .cloned()
    };
    Args {
        seed: value("--seed").and_then(|v| v.parse().ok()).unwrap_or(7),
        secs: value("--secs").and_then(|v| v.parse().ok()).unwrap_or(20),
        loops: value("--loops").and_then(|v| v.parse().ok()).unwrap_or(32),
        tasks: value("--tasks").and_then(|v| v.parse().ok()).unwrap_or(5),
        only: value("--only"),
        single: all.iter().any(|a| a == "--single"),
    }
}

/// The farm of every run: its bad day, with limits that the loops outrun (a minute's budget
/// of 300 requests a key, refilled at 5 a second), incidents every few seconds, and a silent
/// stream held for 10 s before the provider drops it.
fn farm_config(seed: u64) -> Config {
    Config {
        requests_per_minute: 300,
        tokens_per_minute: 90_000,
        silence: Duration::from_secs(10),
        // An incident every six seconds or so: a run's work lasts seconds, not minutes.
        rates: Rates {
            incident_every: Duration::from_secs(6),
            throttled_for: Duration::from_secs(1),
            overloaded_for: Duration::from_millis(1_500),
            ..Rates::BAD_DAY
        },
        ..Config::bad_day(seed)
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = args();
    let redis = if args.single {
        None
    } else {
        Some(own_redis::start()?)
    };
    println!(
        "An agent's bad day: seed {}, {} agent loops of {} tasks of 3 calls, at most {} s a run.",
        args.seed, args.loops, args.tasks, args.secs
    );
    let mut rows = Vec::new();
    for strategy in strategies::all() {
        if args.only.as_deref().is_some_and(|o| o != strategy.name()) {
            continue;
        }
        let fleets: &[usize] = if args.single { &[1] } else { &[1, 4] };
        for &replicas in fleets {
            let farm = Farm::start(farm_config(args.seed)).await?;
            let urls: HashMap<Kind, String> = Kind::ALL.iter().map(|&k| (k, farm.url(k))).collect();
            let mut envs = Vec::new();
            for r in 0..replicas {
                let store = match (&redis, replicas) {
                    (Some((_, url)), 2..) => Some(Arc::new(
                        RedisStore::builder(url.as_str())
                            .prefix(format!("bad-day-{}-{}", strategy.name(), args.seed))
                            .connect()
                            .await?,
                    )),
                    _ => None,
                };
                let _ = r;
                envs.push(Env {
                    urls: urls.clone(),
                    redis: store,
                });
            }
            let plan = Plan {
                loops: args.loops,
                replicas,
                tasks: args.tasks,
                duration: Duration::from_secs(args.secs),
                seed: args.seed,
                call_cap: Duration::from_secs(20),
                steps: 3,
            };
            let began = std::time::Instant::now();
            let records = workload::run(&*strategy, &envs, plan).await;
            eprintln!(
                "   ({} with {replicas} replica(s): {:.1} s)",
                strategy.name(),
                began.elapsed().as_secs_f64()
            );
            let planned = workload::planned(&plan, farm_config(args.seed).context_tokens);
            let row = Row::new(
                strategy.name(),
                replicas,
                &planned,
                plan.steps,
                &records,
                &farm,
            );
            println!("{}", row.line());
            rows.push(row);
        }
    }
    println!();
    println!("{}", report::table(&rows));
    println!("What each strategy follows:");
    for strategy in strategies::all() {
        println!("- {}: {}", strategy.name(), strategy.follows());
    }
    Ok(())
}
