//! The workload: concurrent agent loops, each working through the same tasks of streamed
//! model calls with prompts of varied size and a tool call between two calls, within a
//! wall-clock budget.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use agent_error_farm::{Kind, LOW_CREDIT_KEY, Rng};

use crate::strategies::{Call, Env, Replica, Screen, Strategy};

/// The shape of a run.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Agent loops in all, spread over the replicas.
    pub loops: usize,
    /// Replicas of the agent service.
    pub replicas: usize,
    /// The tasks of each loop, each of [`steps`](Plan::steps) model calls.
    pub tasks: usize,
    /// How long loops may start new calls: the run's wall-clock budget.
    pub duration: Duration,
    /// The seed of the prompts.
    pub seed: u64,
    /// The longest one call may take before the loop gives it up.
    pub call_cap: Duration,
    /// The model calls of one task, with a tool call between two of them.
    pub steps: usize,
}

/// What one model call came to.
#[derive(Clone, Debug)]
pub struct Record {
    /// Its prompt (unique in the run).
    pub prompt: String,
    /// Whether the strategy took the answer as complete.
    pub ok: bool,
    /// What it showed the user, in order, since its last new attempt.
    pub shown: String,
    /// New attempts that replaced text already shown.
    pub restarts: u32,
    /// From the call's start to its end.
    pub took: Duration,
}

/// The API key of loop `i`: two loops in sixteen spend the account whose credit runs out.
fn key_of(i: usize) -> &'static str {
    if i % 16 == 5 {
        LOW_CREDIT_KEY
    } else {
        "team-key"
    }
}

/// The provider loop `i` calls first: a quarter call the OpenAI-compatible one, the rest
/// OpenAI (a strategy that falls back goes to Anthropic).
fn primary_of(i: usize) -> Kind {
    if i % 4 == 3 {
        Kind::Compatible
    } else {
        Kind::OpenAi
    }
}

/// A call the plan makes if nothing fails.
pub struct Planned {
    /// Its prompt.
    pub prompt: String,
    /// Whether the prompt fits the context window.
    pub fits: bool,
    /// Whether its loop spends the account whose credit runs out.
    pub low_credit: bool,
}

/// Every call the plan makes if nothing fails, with a context window of `context` tokens.
pub fn planned(plan: &Plan, context: u64) -> Vec<Planned> {
    let mut out = Vec::new();
    for l in 0..plan.loops {
        for task in 0..plan.tasks {
            for step in 0..plan.steps {
                let prompt = prompt(plan.seed, l, task, step);
                out.push(Planned {
                    fits: agent_error_farm::tokens(&prompt) <= context,
                    low_credit: key_of(l) == LOW_CREDIT_KEY,
                    prompt,
                });
            }
        }
    }
    out
}

/// The prompt of a step: unique, and of a size drawn from the seed (mostly short, some long,
/// a few over the farm's context window).
pub fn prompt(seed: u64, l: usize, task: usize, step: usize) -> String {
    let mut rng = Rng::new(seed ^ ((l as u64) << 40) ^ ((task as u64) << 16) ^ step as u64);
    let roll = rng.below(100);
    let words = match roll {
        0..=89 => 10 + rng.below(300),
        90..=96 => 800 + rng.below(2_000),
        _ => 4_000 + rng.below(1_000),
    };
    let mut text = format!("loop {l} task {task} step {step}:");
    for i in 0..words {
        text.push_str(if i % 7 == 0 { " tool" } else { " data" });
    }
    text
}

/// Runs `strategy` over `plan`, replica `r` made with `envs[r]`.
pub async fn run(strategy: &dyn Strategy, envs: &[Env], plan: Plan) -> Vec<Record> {
    let records = Arc::new(Mutex::new(Vec::new()));
    let start = Instant::now();
    let mut tasks = Vec::new();
    let per_replica = plan.loops.div_ceil(plan.replicas);
    for r in 0..plan.replicas {
        let replica: Arc<dyn Replica> = Arc::from(strategy.replica(&envs[r % envs.len()]));
        for l in (r * per_replica..((r + 1) * per_replica).min(plan.loops)).collect::<Vec<_>>() {
            let (replica, records) = (replica.clone(), records.clone());
            tasks.push(tokio::spawn(async move {
                agent_loop(&*replica, l, plan, start, &records).await;
            }));
        }
    }
    for task in tasks {
        let _ = task.await;
    }
    std::mem::take(&mut *records.lock().unwrap_or_else(PoisonError::into_inner))
}

async fn agent_loop(
    replica: &dyn Replica,
    l: usize,
    plan: Plan,
    start: Instant,
    records: &Mutex<Vec<Record>>,
) {
    let primary = primary_of(l);
    let key = key_of(l);
    'tasks: for task in 0..plan.tasks {
        for step in 0..plan.steps {
            if start.elapsed() >= plan.duration {
                break 'tasks;
            }
            let prompt = prompt(plan.seed, l, task, step);
            let mut screen = Screen::default();
            let began = Instant::now();
            let call = Call {
                primary,
                key,
                prompt: &prompt,
            };
            let outcome =
                tokio::time::timeout(plan.call_cap, replica.call(call, &mut screen)).await;
            let ok = matches!(outcome, Ok(Ok(())));
            if std::env::var_os("BAD_DAY_DEBUG").is_some() && !ok {
                eprintln!(
                    "loop {l} at {:.1} s, after {:?}: {:?}",
                    start.elapsed().as_secs_f64(),
                    began.elapsed(),
                    outcome.as_ref().map(|r| r.as_ref().err())
                );
            }
            records
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(Record {
                    prompt,
                    ok,
                    shown: screen.text,
                    restarts: screen.restarts,
                    took: began.elapsed(),
                });
            if !ok {
                // The loop gives the task up and starts the next one.
                break;
            }
            // The tool call between two model calls.
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}
