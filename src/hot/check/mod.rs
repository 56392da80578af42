//! `lowstate check --hot` (placeholder until the HOT schemas land).

/// Validate the resources of a HOT compile (nothing yet).
pub fn check(_input: &crate::hot::Input) -> Vec<crate::diag::Diagnostic> {
    Vec::new()
}
