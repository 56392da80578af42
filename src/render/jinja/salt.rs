//! TODO (saltlib helper): the `salt` object and Salt's pure execution functions.

use crate::render::jinja::RenderData;
use std::sync::Arc;

/// The `salt` object templates see (`salt['pillar.get'](...)`, `salt.grains.get(...)`).
pub fn salt_object(_data: Arc<RenderData>) -> minijinja::Value {
    minijinja::Value::from(())
}
