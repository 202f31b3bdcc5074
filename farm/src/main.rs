//! `cargo run -p agent-error-farm -- [--seed N] [--calm]`: serves the three providers until
//! Ctrl-C, then prints what each one counted. Point an agent's base URLs at them to see how
//! it gets through a bad day.

use agent_error_farm::{Config, Farm, Kind};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seed = args
        .iter()
        .position(|a| a == "--seed")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(7);
    let config = if args.iter().any(|a| a == "--calm") {
        Config::calm(seed)
    } else {
        Config::bad_day(seed)
    };
    let farm = Farm::start(config).await?;
    println!("seed {seed}; stop with Ctrl-C");
    for kind in Kind::ALL {
        let windows = farm.incidents(kind);
        println!(
            "{:<10} {}{}  ({} incidents in the first ten minutes)",
            kind.name(),
            farm.url(kind),
            &kind.path()[3..],
            windows.len()
        );
    }
    tokio::signal::ctrl_c().await?;
    for kind in Kind::ALL {
        println!("{:<10} {:?}", kind.name(), farm.stats(kind));
    }
    Ok(())
}
