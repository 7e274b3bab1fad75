//! Reading the requests of a large batch body one at a time: the array at a path of object keys
//! is handed out element by element while the body is parsed, so the mock never holds a whole
//! paper-scale batch as one JSON value.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

struct State<'f> {
    each: &'f mut dyn FnMut(Value),
    count: usize,
    found: bool,
}

struct AtPath<'p, 's, 'f> {
    path: &'p [&'p str],
    state: &'s mut State<'f>,
}

impl<'de> DeserializeSeed<'de> for AtPath<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.path.is_empty() {
            self.state.found = true;
            d.deserialize_seq(self)
        } else {
            d.deserialize_map(self)
        }
    }
}

impl<'de> Visitor<'de> for AtPath<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str("an array")
        } else {
            write!(f, "an object with {}", self.path[0])
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let AtPath { path, state } = self;
        while let Some(key) = map.next_key::<String>()? {
            if key == path[0] {
                map.next_value_seed(AtPath { path: &path[1..], state: &mut *state })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(v) = seq.next_element::<Value>()? {
            (self.state.each)(v);
            self.state.count += 1;
        }
        Ok(())
    }
}

/// Call `each` on every element of the array at `path` in the JSON `body`, in order; the number
/// of elements, or why the body cannot be read (not JSON, or no array at the path).
pub fn for_each_element(body: &[u8], path: &[&str], each: &mut dyn FnMut(Value)) -> Result<usize, String> {
    let mut state = State { each, count: 0, found: false };
    let mut d = serde_json::Deserializer::from_slice(body);
    AtPath { path, state: &mut state }
        .deserialize(&mut d)
        .map_err(|e| format!("request body is not valid JSON: {e}"))?;
    d.end().map_err(|e| format!("request body is not valid JSON: {e}"))?;
    if !state.found {
        return Err(format!("{} is required", path.join(".")));
    }
    Ok(state.count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hands_out_the_array_at_a_path_one_element_at_a_time() {
        let body =
            br#"{"name": "x", "batch": {"skip": [1, 2], "input": {"requests": [{"a": 1}, {"a": 2}, {"a": 3}]}}}"#;
        let mut seen = Vec::new();
        let n = for_each_element(body, &["batch", "input", "requests"], &mut |v| seen.push(v["a"].clone())).unwrap();
        assert_eq!(n, 3);
        assert_eq!(seen, vec![Value::from(1), Value::from(2), Value::from(3)]);
        let missing = for_each_element(body, &["batch", "other"], &mut |_| {}).unwrap_err();
        assert!(missing.contains("batch.other is required"), "{missing}");
        assert!(for_each_element(b"{\"requests\": [1,", &["requests"], &mut |_| {}).is_err());
        assert!(for_each_element(b"{\"requests\": 5}", &["requests"], &mut |_| {}).is_err());
    }
}
