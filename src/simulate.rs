//! Dry run: walks the lowstate as Salt's executor would. TODO (issue 5).

use crate::compile::Session;
use crate::diag::{Diagnostic, Diagnostics};
use crate::value::Value;

/// The simulated run, in run order.
pub struct RunResult {
    pub entries: Vec<Value>,
}

impl RunResult {
    pub fn to_value(&self) -> Value {
        Value::List(self.entries.clone())
    }
}

/// Compile and simulate a session.
pub fn run_session(_session: &Session) -> Result<RunResult, Diagnostics> {
    Err(Diagnostic::error("not-implemented", "simulate is not implemented yet").into())
}
