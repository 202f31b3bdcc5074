//! `cargo run --release -p agent-error-bad-day -- [--seeds A,B,…|--seed N] [--secs S]
//! [--loops L] [--tasks T] [--only NAME] [--single] [--litellm PYTHON]`: an agent's bad
//! day, measured. Each
//! strategy runs the same workload against a fresh provider farm for each seed (five by
//! default, run at once), with one replica and then with a fleet of four (sharing Redis, for
//! the strategies that can), and the table gives each figure's median over the seeds and
//! its spread. `BAD_DAY_DEBUG=1` prints each call that failed, and why, and what each provider counted.

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
    seeds: Vec<u64>,
    secs: u64,
    loops: usize,
    tasks: usize,
    only: Option<String>,
    single: bool,
    litellm: Option<String>,
}

fn args() -> Args {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        all.iter()
            .position(|a| a == flag)
            .and_then(|i| all.get(i + 1))
            .cloned()
    };
    let seeds = match (value("--seed"), value("--seeds")) {
        (Some(one), _) => one.parse().ok().map(|s| vec![s]),
        (None, Some(list)) => list.split(',').map(|s| s.trim().parse().ok()).collect(),
        (None, None) => None,
    };
    Args {
        seeds: seeds
            .filter(|s| !s.is_empty())
            .unwrap_or(DEFAULT_SEEDS.to_vec()),
        secs: value("--secs").and_then(|v| v.parse().ok()).unwrap_or(20),
        loops: value("--loops").and_then(|v| v.parse().ok()).unwrap_or(32),
        tasks: value("--tasks").and_then(|v| v.parse().ok()).unwrap_or(4),
        only: value("--only"),
        single: all.iter().any(|a| a == "--single"),
        litellm: value("--litellm"),
    }
}

/// The seeds of a run, unless `--seed` or `--seeds` says otherwise.
const DEFAULT_SEEDS: [u64; 5] = [7, 8, 9, 10, 11];

/// The farm of every run: its bad day, with limits that the loops outrun (a minute's budget
/// of 240 requests a key, refilled at 4 a second), streams of a delta every 12 ms, incidents
/// every few seconds, a silent stream held for 10 s before the provider drops it, and a
/// low-credit account that runs out at each provider after 400 output tokens, a few calls
/// into the run.
fn farm_config(seed: u64) -> Config {
    Config {
        requests_per_minute: 240,
        tokens_per_minute: 72_000,
        delta_gap: Duration::from_millis(12),
        silence: Duration::from_secs(10),
        credit_tokens: 400,
        // An incident every five seconds or so: a run's work lasts seconds, not minutes.
        rates: Rates {
            incident_every: Duration::from_secs(5),
            throttled_for: Duration::from_secs(1),
            overloaded_for: Duration::from_millis(1_500),
            ..Rates::BAD_DAY
        },
        ..Config::bad_day(seed)
    }
}

/// One run: `strategy` with `replicas` against a fresh farm of `seed`, and its row.
async fn run_one(
    strategy: &dyn strategies::Strategy,
    replicas: usize,
    seed: u64,
    args: &Args,
    redis: Option<&str>,
) -> Result<Row, Box<dyn std::error::Error>> {
    let farm = Farm::start(farm_config(seed)).await?;
    let urls: HashMap<Kind, String> = Kind::ALL.iter().map(|&k| (k, farm.url(k))).collect();
    let mut envs = Vec::new();
    for _ in 0..replicas {
        let store = match (redis, replicas) {
            (Some(url), 2..) => Some(Arc::new(
                RedisStore::builder(url)
                    .prefix(format!("bad-day-{}-{seed}", strategy.name()))
                    .connect()
                    .await?,
            )),
            _ => None,
        };
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
        seed,
        call_cap: Duration::from_secs(20),
        steps: 3,
    };
    let records = workload::run(strategy, &envs, plan).await;
    let planned = workload::planned(&plan, farm_config(seed).context_tokens);
    if std::env::var_os("BAD_DAY_DEBUG").is_some() {
        for kind in Kind::ALL {
            eprintln!("seed {seed} {}: {:?}", kind.name(), farm.stats(kind));
        }
    }
    Ok(Row::new(
        strategy.name(),
        replicas,
        &planned,
        plan.steps,
        &records,
        &farm,
    ))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = args();
    let redis = if args.single {
        None
    } else {
        Some(own_redis::start()?)
    };
    let redis_url = redis.as_ref().map(|(_, url)| url.as_str());
    println!(
        "An agent's bad day: seeds {:?}, {} agent loops of {} tasks of 3 calls, at most {} s a run.",
        args.seeds, args.loops, args.tasks, args.secs
    );
    let began = std::time::Instant::now();
    let mut all = strategies::all();
    if let Some(python) = &args.litellm {
        let litellm = strategies::litellm::LiteLlm::new(python)?;
        all.insert(all.len() - 1, Box::new(litellm));
    }
    let mut groups = Vec::new();
    for strategy in &all {
        if args.only.as_deref().is_some_and(|o| o != strategy.name()) {
            continue;
        }
        let fleets: &[usize] = if args.single || !strategy.fleet() {
            &[1]
        } else {
            &[1, 4]
        };
        for &replicas in fleets {
            // The seeds run at once, each against a farm of its own: the runs mostly wait
            // on the farm's clock, and the whole table stays within minutes.
            strategy.prepare(args.seeds.len());
            let run = std::time::Instant::now();
            let runs = args
                .seeds
                .iter()
                .map(|&seed| run_one(&**strategy, replicas, seed, &args, redis_url));
            let rows = if strategy.seeds_at_once() {
                futures_util::future::join_all(runs).await
            } else {
                let mut rows = Vec::new();
                for run in runs {
                    rows.push(run.await);
                }
                rows
            }
            .into_iter()
            .collect::<Result<Vec<_>, _>>()?;
            eprintln!(
                "   ({} with {replicas} replica(s), {} seeds: {:.1} s)",
                strategy.name(),
                rows.len(),
                run.elapsed().as_secs_f64()
            );
            for (seed, row) in args.seeds.iter().zip(&rows) {
                println!("seed {seed}: {}", row.line());
            }
            groups.push(rows);
        }
    }
    println!();
    println!(
        "Over {} seeds: the median of each figure, and its least and most in brackets ({:.0} s in all).",
        args.seeds.len(),
        began.elapsed().as_secs_f64()
    );
    println!();
    println!("{}", report::spread_table(&groups));
    println!("What each strategy follows:");
    for strategy in &all {
        println!("- {}: {}", strategy.name(), strategy.follows());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This library's strategy through a short bad day with an incident every second: every
    /// call that can complete completes, whole and once, nothing is retried in vain, and
    /// output is thrown away only by an answer started over where it could not go on.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn agent_error_gets_through_a_bad_day() {
        let mut config = farm_config(7);
        config.rates.incident_every = Duration::from_secs(1);
        let context = config.context_tokens;
        let farm = Farm::start(config).await.unwrap();
        let urls: HashMap<Kind, String> = Kind::ALL.iter().map(|&k| (k, farm.url(k))).collect();
        let envs = [Env { urls, redis: None }];
        let plan = Plan {
            loops: 8,
            replicas: 1,
            tasks: 2,
            duration: Duration::from_secs(30),
            seed: 7,
            call_cap: Duration::from_secs(20),
            steps: 3,
        };
        let records = workload::run(&strategies::ours::Library, &envs, plan).await;
        let planned = workload::planned(&plan, context);
        let row = Row::new("agent-error", 1, &planned, plan.steps, &records, &farm);
        let faults: u64 = Kind::ALL
            .iter()
            .map(|&k| {
                let s = farm.stats(k);
                s.error_before_text
                    + s.error_after_text
                    + s.cut
                    + s.silent
                    + s.throttled
                    + s.overloaded
            })
            .sum();
        assert!(faults > 0, "the day had no fault");
        assert!(row.can_complete > 30, "{}", row.line());
        assert_eq!(row.completed, row.can_complete, "{}", row.line());
        assert_eq!(
            (row.shown_twice, row.cut_as_complete, row.hopeless),
            (0, 0, 0),
            "{}",
            row.line()
        );
        // Output is thrown away only where an answer started over at OpenAI, which cannot
        // continue one.
        if row.restarted == 0 {
            assert_eq!(row.thrown_away, 0, "{}", row.line());
        }
    }
}
