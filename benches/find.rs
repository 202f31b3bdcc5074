//! What `agent_error::find` and `classify` cost with 50 derived types registered, against
//! a direct `downcast_ref` walk by a caller who knows the type to look for, at depths 1
//! and 8. `find_500.rs` is the same with 500 types. Run with `cargo bench --bench find`.

use std::error::Error as StdError;

use agent_error::AgentError;
use criterion::Criterion;

#[path = "common/find.rs"]
mod common;

use common::{Chains, Direct, direct};

macro_rules! derived_types {
    ($($name:ident)*) => {
        $(
            #[derive(Debug, AgentError)]
            #[agent(op = "bench.find", code = "found")]
            #[error("found")]
            struct $name;
        )*

        /// One chain bottom per type, with the reference's direct downcast for it.
        fn bottoms() -> Chains {
            vec![$((Box::new($name) as Box<dyn StdError + Send + Sync>, direct::<$name> as Direct)),*]
        }
    };
}

derived_types! {
    E00 E01 E02 E03 E04 E05 E06 E07 E08 E09 E10 E11 E12 E13 E14 E15 E16 E17 E18 E19
    E20 E21 E22 E23 E24 E25 E26 E27 E28 E29 E30 E31 E32 E33 E34 E35 E36 E37 E38 E39
    E40 E41 E42 E43 E44 E45 E46 E47 E48 E49
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    common::bench(&mut c, bottoms);
    c.final_summary();
}
