//! TODO: pillar
