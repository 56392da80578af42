//! A large synthetic high data tree, shared by `tests/high_to_low.rs`
//! (correctness) and `benches/high_to_low.rs` (how the compile scales).

use lowstate::value::Value;
use serde_json::Value as Json;

/// The high data of the large synthetic tree: 3 SLS files × `n` states
/// with requires, watch, require_in lists, `sls:` and glob requisites and
/// `names`.
pub fn large_tree(n: usize) -> lowstate::value::Map {
    let mut high = serde_json::Map::new();
    let mut order = 10000;
    for f in 0..3 {
        let sls = format!("sls{f}");
        for i in 0..n {
            let id = format!("s{f}-{i}");
            let mut args = vec![serde_json::json!("nop")];
            if i > 0 {
                args.push(serde_json::json!({"require": [{"test": format!("s{f}-{}", i - 1)}]}));
                args.push(serde_json::json!({"watch": [format!("s{f}-{}", i / 2)]}));
            }
            if (i == 500 || i == 1500) && f > 0 {
                args.push(serde_json::json!({"require": [{"sls": format!("sls{}", f - 1)}]}));
                args.push(serde_json::json!({"require_in": [{"test": format!("s{f}-{}", i + 1)}, format!("s{f}-{}", i + 2)]}));
            }
            if i == 1 || i == 1001 {
                args.push(serde_json::json!({"onchanges": [{"test": format!("s{f}-[0]")}]}));
                args.push(
                    serde_json::json!({"names": [format!("n{f}-{i}-a"), format!("n{f}-{i}-b")]}),
                );
            }
            args.push(serde_json::json!({"order": order}));
            order += 1;
            high.insert(
                id,
                serde_json::json!({"test": args, "__sls__": sls, "__env__": "base"}),
            );
        }
    }
    let Value::Map(high) = Value::from_json(&Json::Object(high)) else {
        unreachable!()
    };
    high
}
