//! Rendering: turns an SLS (or top / pillar) file's text into data through a
//! renderer pipe (`jinja|yaml` by default, or a `#!` shebang): `jinja` makes
//! text, `yaml` / `json` make data. Owns the pipe parsing; the engines live
//! in `jinja` and `yaml`.

pub mod jinja;
pub mod yaml;
