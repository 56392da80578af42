//! `src/hot/update/props.txt` (the property facts the update preview
//! reads: `update_allowed`, `immutable`, `required`, type, default) is exactly what
//! Heat 27.0.1's schemas in `tests/data/heat-27.0.1-resource-schemas.json`
//! say, with the hidden types of `tests/data/heat-27.0.1-hidden-resource-schemas.json`
//! (deprecated names Heat still instantiates; `tests/data/gen-heat-hidden-schemas`
//! made it). `LOWSTATE_REGEN_UPDATE_PROPS=1` rewrites it from the JSON.

use std::path::Path;

fn generate(types: &serde_json::Map<String, serde_json::Value>) -> String {
    let mut out = String::from(
        "# Per resource type of Heat 27.0.1, each property: update_allowed (u), immutable (i), required (r),\n\
         # its type and default (JSON). Generated from tests/data/heat-27.0.1-resource-schemas.json\n\
         # and tests/data/heat-27.0.1-hidden-resource-schemas.json;\n\
         # tests/update_props.rs keeps it equal (LOWSTATE_REGEN_UPDATE_PROPS=1 rewrites it).\n",
    );
    let mut names: Vec<&String> = types.keys().collect();
    names.sort();
    for t in names {
        out.push_str(t);
        out.push('\n');
        let props = types[t]["properties"].as_object().expect("properties");
        let mut keys: Vec<&String> = props.keys().collect();
        keys.sort();
        for p in keys {
            let s = &props[p];
            let mut flags = String::new();
            if s["update_allowed"] == true {
                flags.push('u');
            }
            if s["immutable"] == true {
                flags.push('i');
            }
            if s["required"] == true {
                flags.push('r');
            }
            if flags.is_empty() {
                flags.push('-');
            }
            let ty = s["type"].as_str().unwrap_or_default();
            out.push_str(&format!("  {p} {flags} {ty}"));
            if let Some(d) = s.get("default").filter(|d| !d.is_null()) {
                out.push(' ');
                out.push_str(&serde_json::to_string(d).unwrap());
            }
            out.push('\n');
        }
    }
    out
}

#[test]
fn update_props_txt_matches_heats_schemas() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |name: &str| -> serde_json::Map<String, serde_json::Value> {
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root.join("tests/data").join(name)).unwrap(),
        )
        .unwrap();
        json["types"].as_object().expect("types").clone()
    };
    let mut types = read("heat-27.0.1-resource-schemas.json");
    let hidden = read("heat-27.0.1-hidden-resource-schemas.json");
    assert_eq!(hidden.len(), 6, "the six hidden types");
    for (name, schema) in hidden {
        assert!(
            types.insert(name.clone(), schema).is_none(),
            "{name} is not hidden"
        );
    }
    let want = generate(&types);
    let path = root.join("src/hot/update/props.txt");
    if std::env::var_os("LOWSTATE_REGEN_UPDATE_PROPS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap();
    assert!(
        have == want,
        "src/hot/update/props.txt is stale: LOWSTATE_REGEN_UPDATE_PROPS=1 cargo test --test update_props"
    );
}
