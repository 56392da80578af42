//! TODO (saltlib helper): Salt's Jinja filters and tests.

/// Register Salt's extra filters and tests (and overrides of builtins).
pub fn register(_env: &mut minijinja::Environment<'static>) {}
