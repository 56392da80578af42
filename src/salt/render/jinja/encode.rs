//! Salt's `json_encode_dict` / `json_decode_dict` and `json_encode_list` /
//! `json_decode_list` filters: `salt.utils.data.encode_dict` and
//! `encode_list`, which Salt 3008.5 still registers under both names.
//! Every string, key or value, at any depth, becomes UTF-8 `bytes`, so
//! `{{ {'k': 'v', 'n': 1} | json_decode_dict }}` prints `{b'k': b'v', b'n':
//! 1}` (which YAML then reads as the strings `"b'k'"`).

use super::py::print::py_type_name;
use super::py::{new_list, new_map};
use super::salt::py_error;
use minijinja::value::{Value as MjValue, ValueKind};
use minijinja::{Environment, Error};

/// Register the four filters.
pub(crate) fn register(env: &mut Environment<'static>) {
    for name in ["json_encode_dict", "json_decode_dict"] {
        env.add_filter(name, encode_dict);
    }
    for name in ["json_encode_list", "json_decode_list"] {
        env.add_filter(name, encode_list);
    }
}

/// `encode_dict(data)`: a mapping with every string encoded.
fn encode_dict(data: MjValue) -> Result<MjValue, Error> {
    if data.kind() != ValueKind::Map {
        return Err(py_error(format!(
            "AttributeError: '{}' object has no attribute 'items'",
            py_type_name(&data)
        )));
    }
    Ok(encode(&data))
}

/// `encode_list(data)`: each item of an iterable, encoded (a string is
/// iterated by character, as in Python).
fn encode_list(data: MjValue) -> Result<MjValue, Error> {
    match data.kind() {
        ValueKind::String => Ok(new_list(
            data.as_str()
                .unwrap_or_default()
                .chars()
                .map(|c| MjValue::from_bytes(c.to_string().into_bytes()))
                .collect::<Vec<_>>(),
        )),
        ValueKind::Seq | ValueKind::Iterable | ValueKind::Map => {
            let items: Vec<MjValue> = data.try_iter()?.map(|v| encode(&v)).collect();
            Ok(new_list(items))
        }
        _ => Err(py_error(format!(
            "TypeError: '{}' object is not iterable",
            py_type_name(&data)
        ))),
    }
}

/// Strings to bytes, recursively through lists and mappings.
fn encode(v: &MjValue) -> MjValue {
    match v.kind() {
        ValueKind::String => {
            MjValue::from_bytes(v.as_str().unwrap_or_default().as_bytes().to_vec())
        }
        ValueKind::Seq => new_list(
            v.try_iter()
                .map(|it| it.map(|x| encode(&x)).collect::<Vec<_>>())
                .unwrap_or_default(),
        ),
        ValueKind::Map => {
            let pairs: indexmap::IndexMap<MjValue, MjValue> = v
                .try_iter()
                .map(|it| {
                    it.map(|k| {
                        let val = v.get_item(&k).unwrap_or_default();
                        (encode(&k), encode(&val))
                    })
                    .collect()
                })
                .unwrap_or_default();
            new_map(pairs)
        }
        _ => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::r as render_str;

    #[test]
    fn strings_become_bytes_at_every_depth() {
        assert_eq!(
            render_str("{{ {'k': 'v', 'n': 1} | json_decode_dict }}"),
            "{b'k': b'v', b'n': 1}"
        );
        assert_eq!(
            render_str("{{ {'k': ['a', {'b': 'c'}]} | json_encode_dict }}"),
            "{b'k': [b'a', {b'b': b'c'}]}"
        );
        assert_eq!(render_str("{{ ['a', 2] | json_decode_list }}"), "[b'a', 2]");
        assert_eq!(render_str("{{ ['a'] | json_encode_list }}"), "[b'a']");
    }
}
