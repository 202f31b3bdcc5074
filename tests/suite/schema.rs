//! The wire form as JSON Schema (feature `schemars`): every member a serialized report
//! carries is in the schema, and `code` lists the codes a client must handle, a derived
//! type's own included.

use std::collections::BTreeSet;

use agent_error::report::Problem;
use agent_error::{AgentError, Report};
use serde_json::Value;

#[derive(Debug, AgentError)]
#[agent(op = "billing.charge", namespace = "billing")]
enum BillingError {
    #[error("the card was declined")]
    #[agent(code = "card_declined", status = 402)]
    Declined,
    #[error("the ledger is busy")]
    #[agent(code = "ledger_busy", retryable)]
    Busy {
        #[from]
        source: std::io::Error,
        #[location]
        location: &'static std::panic::Location<'static>,
    },
}

fn busy() -> Result<(), BillingError> {
    Err(std::io::Error::other("locked"))?;
    Ok(())
}

fn members(value: &Value) -> BTreeSet<String> {
    value.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn the_report_schema_has_every_member_a_report_carries_and_every_code() {
    let schema = serde_json::to_value(schemars::schema_for!(Report)).unwrap();
    let properties = &schema["properties"];
    let codes: BTreeSet<&str> = properties["code"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    for code in [
        "billing.card_declined",
        "billing.ledger_busy",
        "rate_limit",
        "unclassified",
    ] {
        assert!(codes.contains(code), "{code} missing from {codes:?}");
    }
    assert_eq!(schema["required"], serde_json::json!(["code", "message"]));
    // A report with a cause, a status, a location and hints: each member is described.
    let outer = agent_error::Error::new("billing.charge", "billing.card_declined", "declined")
        .with_source(busy().unwrap_err())
        .with_hint("use another card");
    let json = serde_json::to_value(Report::capture(&outer)).unwrap();
    let mut seen = members(&json);
    seen.extend(members(&json["cause"]));
    assert!(
        seen.contains("location") && seen.contains("cause"),
        "{seen:?}"
    );
    for member in &seen {
        assert!(
            properties.get(member).is_some(),
            "`{member}` is not in the schema"
        );
    }
    // The cause is a report too: at the root, the schema itself.
    assert_eq!(properties["cause"]["$ref"], "#");
}

#[test]
fn the_problem_schema_describes_problem_json() {
    let schema = serde_json::to_value(schemars::schema_for!(Problem)).unwrap();
    let problem = Report::capture(&BillingError::Declined).to_problem();
    let json = serde_json::to_value(&problem).unwrap();
    for member in members(&json) {
        assert!(
            schema["properties"].get(&member).is_some(),
            "`{member}` is not in the schema"
        );
    }
    assert_eq!(schema["properties"]["status"]["maximum"], 599);
}

#[test]
fn the_recovery_member_lists_every_recovery() {
    let schema = serde_json::to_value(schemars::schema_for!(Report)).unwrap();
    let listed = &schema["properties"]["recovery"]["enum"];
    for recovery in agent_error::Recovery::ALL {
        assert!(
            listed
                .as_array()
                .unwrap()
                .contains(&serde_json::json!(recovery.as_str())),
            "{} missing from {listed}",
            recovery.as_str()
        );
    }
}
